package io.gpdedup.store.report;

public record GcReport(long chunksBefore, long chunksRemoved, long bytesReclaimed, long containersRewritten) {
}
