package io.gpdedup.store.net;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PoolArenaMetric;
import io.netty.buffer.PooledByteBufAllocator;

/**
 * Direct memory for whole frames, uploads read and replies written: pooled, so that a frame of
 * megabytes costs neither a fresh zeroed array nor a copy into direct memory on its way to the
 * socket. Chunks of 16 MiB (8 KiB pages, order 11) so that a frame of the default maximum is carved
 * from one instead of allocated on its own; no thread caches, since frames are freed on other
 * threads (engine, event loop) than the one that took them, which would each keep some.
 */
public final class FramePool {
    private static final PooledByteBufAllocator POOL = new PooledByteBufAllocator(true, 0,
            Math.max(2, Runtime.getRuntime().availableProcessors()), 8192, 11, 0, 0, false);

    private FramePool() {
    }

    /** A buffer of exactly {@code length} bytes; whoever ends up holding it releases it. */
    static ByteBuf take(int length) {
        return POOL.directBuffer(length, length);
    }

    static boolean owns(ByteBuf buf) {
        return buf.alloc() == POOL;
    }

    /** Frames taken and not released yet, in every connection of this JVM. */
    static long inUse() {
        return POOL.metric().directArenas().stream().mapToLong(PoolArenaMetric::numActiveAllocations).sum();
    }

    /** Direct memory the pool holds now: the chunks frames are carved from, in use or kept for reuse. */
    public static long reservedBytes() {
        return POOL.metric().usedDirectMemory();
    }

    /** Frames taken since the JVM started. */
    static long taken() {
        return POOL.metric().directArenas().stream().mapToLong(PoolArenaMetric::numAllocations).sum();
    }
}
