package io.gpdedup.bench.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time and load from Linux {@code /proc}. A tool's CPU is read as the growth of this JVM's
 * reaped-children time ({@code cutime + cstime}) across one run: that covers the tool's whole
 * life, which {@code /proc/<pid>} cannot, since it is gone when the tool exits.
 */
final class ProcStat {
    /** USER_HZ: what /proc counts CPU time in; 100 on every Linux the kernel ABI allows for x86 and arm. */
    static final long TICKS_PER_SECOND = 100;

    private ProcStat() {
    }

    /** User + system CPU of this JVM's children that have exited and been waited for, in ns; -1 without /proc. */
    static long reapedChildrenCpuNanos() {
        long[] f = fields(Path.of("/proc/self/stat"));
        return f == null ? -1 : ticksToNanos(f[16] + f[17]);
    }

    /** User + system CPU of the live process {@code pid}, in ns; -1 when it cannot be read. */
    static long cpuNanos(long pid) {
        long[] f = fields(Path.of("/proc/" + pid + "/stat"));
        return f == null ? -1 : ticksToNanos(f[14] + f[15]);
    }

    /** The 1, 5 and 15 minute load averages as /proc/loadavg prints them, or "unknown". */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /**
     * Numeric fields of a {@code stat} line, indexed as proc(5) numbers them (field 14 = utime at
     * index 14); non-numeric fields are 0. The command name may hold blanks and parentheses, so
     * fields are counted from the last ')'.
     */
    static long[] parseStat(String line) {
        int close = line.lastIndexOf(')');
        if (close < 0) {
            throw new IllegalArgumentException("not a /proc stat line: " + line);
        }
        String[] rest = line.substring(close + 1).trim().split("\\s+");
        long[] out = new long[rest.length + 3];
        for (int i = 0; i < rest.length; i++) {
            try {
                out[i + 3] = Long.parseLong(rest[i]);
            } catch (NumberFormatException e) {
                out[i + 3] = 0;
            }
        }
        if (out.length <= 17) {
            throw new IllegalArgumentException("/proc stat line too short: " + line);
        }
        return out;
    }

    private static long[] fields(Path stat) {
        try {
            return parseStat(Files.readString(stat));
        } catch (IOException | IllegalArgumentException e) {
            return null;
        }
    }

    private static long ticksToNanos(long ticks) {
        return ticks * (1_000_000_000L / TICKS_PER_SECOND);
    }
}
