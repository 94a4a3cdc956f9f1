package io.gpdedup.store.engine;

public record GcReport(long chunksBefore, long chunksRemoved, long bytesReclaimed, long containersRewritten) {
}
