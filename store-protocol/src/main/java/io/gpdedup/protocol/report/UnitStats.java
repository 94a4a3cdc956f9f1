package io.gpdedup.protocol.report;

/** Logical bytes = sum of committed object lengths; physical = bytes of chunk payloads on disk. */
public record UnitStats(long objects, long logicalBytes, long chunks, long physicalBytes, long containers, long indexBytes) {
}
