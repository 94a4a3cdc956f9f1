package io.gpdedup.protocol.report;

public record GcReport(long chunksBefore, long chunksRemoved, long bytesReclaimed, long containersRewritten) {
}
