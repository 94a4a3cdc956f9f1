package io.gpdedup.testsupport;

import java.lang.management.ManagementFactory;

/** Bytes the current thread has allocated so far (HotSpot's counter), to bound what an input can make a parser allocate. */
public final class Allocation {
    private static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private Allocation() {
    }

    public static long sofar() {
        return THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
    }
}
