package io.gpdedup.store.net;

import com.sun.management.UnixOperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/** This process's file descriptors: its limit (RLIMIT_NOFILE, as the JVM raised it) and how many are open. */
final class Descriptors {
    private Descriptors() {
    }

    /** The limit, or -1 where the platform does not say (not a Unix JVM). */
    static long limit() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof UnixOperatingSystemMXBean unix ? unix.getMaxFileDescriptorCount() : -1;
    }

    /** How many are open now (counts /proc/self/fd on Linux: milliseconds with tens of thousands open), or -1. */
    static long open() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof UnixOperatingSystemMXBean unix ? unix.getOpenFileDescriptorCount() : -1;
    }
}
