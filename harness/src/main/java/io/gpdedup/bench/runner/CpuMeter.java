package io.gpdedup.bench.runner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * How busy the CPUs were between two instants: the whole machine's (from /proc/stat, everyone's
 * work included) and that of the processes a live run consists of. A live run is only meaningful
 * when the throttle, not the CPU, sets its pace; on a shared machine the two figures tell apart
 * our own load from the neighbours'.
 */
final class CpuMeter {
    /** Linux's USER_HZ: /proc times are in these ticks. */
    private static final double TICKS_PER_SECOND = 100;
    private static final int CPUS = Runtime.getRuntime().availableProcessors();

    private final long[] machineStart;
    private final List<Long> pids;
    private final double processStart;
    private final long wallStart;

    private CpuMeter(List<Long> pids) {
        this.pids = List.copyOf(pids);
        this.machineStart = machine();
        this.processStart = processSeconds(this.pids);
        this.wallStart = System.nanoTime();
    }

    /** Starts measuring the machine and the given processes (this JVM is always included). */
    public static CpuMeter start(long... otherPids) {
        List<Long> pids = new java.util.ArrayList<>();
        pids.add(ProcessHandle.current().pid());
        for (long p : otherPids) {
            pids.add(p);
        }
        return new CpuMeter(pids);
    }

    /** Busy share of all CPUs since the start, 0..1; NaN where /proc/stat is not available. */
    double machineBusy() {
        long[] now = machine();
        if (machineStart == null || now == null) {
            return Double.NaN;
        }
        long total = now[0] - machineStart[0];
        long idle = now[1] - machineStart[1];
        return total <= 0 ? Double.NaN : (double) (total - idle) / total;
    }

    /**
     * Share of all CPUs the measured processes used since the start, 0..1, plus
     * {@code extraCpuSeconds} (e.g. what child processes reported of themselves).
     */
    double ourBusy(double extraCpuSeconds) {
        double wall = (System.nanoTime() - wallStart) / 1e9;
        double used = processSeconds(pids) - processStart + extraCpuSeconds;
        return wall <= 0 ? Double.NaN : used / (wall * CPUS);
    }

    /** CPU seconds (user + system, with reaped children) of processes, from /proc/PID/stat; 0 for gone ones. */
    static double processSeconds(List<Long> pids) {
        double sum = 0;
        for (long pid : pids) {
            sum += processSeconds(pid);
        }
        return sum;
    }

    /** CPU seconds of one process and its reaped children; 0 when unreadable. */
    static double processSeconds(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
            // Fields after the command name, which is in parentheses and may hold blanks.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
            long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
            return ticks / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** {total jiffies, idle + iowait jiffies}, or null. */
    private static long[] machine() {
        try {
            String line = Files.readAllLines(Path.of("/proc/stat")).get(0);
            String[] f = line.trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < f.length; i++) {
                total += Long.parseLong(f[i]);
            }
            long idle = Long.parseLong(f[4]) + (f.length > 5 ? Long.parseLong(f[5]) : 0);
            return new long[] {total, idle};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
