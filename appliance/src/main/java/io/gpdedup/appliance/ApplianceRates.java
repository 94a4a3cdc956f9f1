package io.gpdedup.appliance;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The profile's bandwidth rules as a {@link FlowScheduler.RatePolicy}, in live bytes per second:
 * <ul>
 * <li>writes share the appliance's write capacity for the number of open write streams
 *     ({@link ApplianceProfile#aggregateCapMBps}), max-min fairly, each stream capped by what its
 *     pool's wire cap ({@link ApplianceProfile#streamCapMBps(int)}) and its client's own work per
 *     byte in series allow ({@link ApplianceProfile#pluginStreamCapMBps(int)} for the plugin);</li>
 * <li>shares are throughputs of bytes as sent (compressed): a stream's wire rate is set so that,
 *     with its client's pauses for its own work, it achieves its share. The appliance is thus
 *     work-conserving: a stream busy chunking does not leave its share idle;</li>
 * <li>once a write stream leaves, every stream that had been sending keeps the logical rate it
 *     had until then as its pool share, and gets back only part of what the departed stream
 *     freed ({@link ApplianceProfile#pooledRateMBps}): the share was fixed when the pool was sized;</li>
 * <li>reads share the read capacity for the number of active read streams, each capped.</li>
 * </ul>
 */
final class ApplianceRates implements FlowScheduler.RatePolicy {
    /** A stream must have been sending this long for its rate to count as its pool share. */
    static final long MEASURE_NANOS = 500_000_000L;

    private final ApplianceProfile profile;

    ApplianceRates(ApplianceProfile profile) {
        this.profile = profile;
    }

    @Override
    public void assign(List<FlowScheduler.Flow> flows, FlowScheduler.Flow departed, long nowNanos) {
        List<FlowScheduler.Flow> writes = new ArrayList<>();
        List<FlowScheduler.Flow> reads = new ArrayList<>();
        for (FlowScheduler.Flow f : flows) {
            (f.kind == FlowScheduler.Kind.WRITE ? writes : reads).add(f);
        }
        if (departed != null && departed.kind == FlowScheduler.Kind.WRITE) {
            for (FlowScheduler.Flow f : writes) {
                long sending = nowNanos - f.firstAskNanos;
                if (Double.isNaN(f.startShare) && f.firstAskNanos != 0 && sending >= MEASURE_NANOS) {
                    f.startShare = f.logicalBytes / (sending / 1e9);
                }
            }
        }
        double[] caps = new double[writes.size()];
        for (int i = 0; i < caps.length; i++) {
            FlowScheduler.Flow f = writes.get(i);
            double wire = profile.liveBytesPerSecond(profile.streamCapMBps(f.poolStreams));
            caps[i] = 1.0 / (ratio(f) * f.clientSecondsPerByte + 1.0 / wire);
        }
        double[] fair = waterFill(profile.liveBytesPerSecond(profile.aggregateCapMBps(writes.size())), caps);
        for (int i = 0; i < fair.length; i++) {
            FlowScheduler.Flow f = writes.get(i);
            double share = fair[i];
            if (!Double.isNaN(f.startShare)) {
                double r = ratio(f);
                share = profile.pooledRateMBps(f.startShare, share * r) / r;
            }
            double wire = profile.liveBytesPerSecond(profile.streamCapMBps(f.poolStreams));
            double perByte = 1.0 / share - ratio(f) * f.clientSecondsPerByte;
            f.rate = perByte <= 0 ? wire : Math.min(wire, 1.0 / perByte);
        }
        double[] readCaps = new double[reads.size()];
        Arrays.fill(readCaps, profile.liveBytesPerSecond(profile.streamReadCapMBps()));
        double[] readFair = waterFill(profile.liveBytesPerSecond(profile.aggregateReadCapMBps(reads.size())), readCaps);
        for (int i = 0; i < readFair.length; i++) {
            reads.get(i).rate = readFair[i];
        }
    }

    /**
     * Logical bytes per byte sent: the stream's compression so far (1 until it has sent some).
     * The client's work is per logical byte, the wire and the appliance see bytes as sent.
     */
    private static double ratio(FlowScheduler.Flow f) {
        return f.movedBytes > 0 && f.logicalBytes > f.movedBytes ? (double) f.logicalBytes / f.movedBytes : 1.0;
    }

    /**
     * Max-min fair shares of {@code capacity} under per-flow {@code caps}: flows capped below an
     * equal share get their cap, the rest split what is left equally.
     */
    static double[] waterFill(double capacity, double[] caps) {
        int n = caps.length;
        double[] share = new double[n];
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Double.compare(caps[a], caps[b]));
        double left = capacity;
        for (int k = 0; k < n; k++) {
            int i = order[k];
            double equal = left / (n - k);
            share[i] = Math.min(caps[i], equal);
            left -= share[i];
        }
        return share;
    }
}
