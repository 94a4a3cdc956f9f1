package io.gpdedup.appliance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ApplianceRatesTest {
    private final ApplianceProfile profile = ApplianceProfileTest.seed();

    private List<FlowScheduler.Flow> rawStreams(FlowScheduler s, int n) {
        List<FlowScheduler.Flow> flows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            flows.add(s.join(FlowScheduler.Kind.WRITE));
        }
        for (FlowScheduler.Flow f : flows) {
            s.update(f, x -> {
                x.client = FlowScheduler.Client.RAW;
                x.poolStreams = n;
            });
        }
        return flows;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 5, 10, 20, 30, 37, 80})
    void rawStreamsGetTheChannelTotalOfTheProfile(int n) {
        FlowScheduler s = new FlowScheduler(new ApplianceRates(profile), new VirtualClock(), FlowTrace.NONE);
        double total = rawStreams(s, n).stream().mapToDouble(FlowScheduler.Flow::rate).sum();
        assertEquals(profile.liveBytesPerSecond(profile.totalWriteMBps(n)), total, total * 1e-9);
    }

    @Test
    void pooledStreamsGetBackOnlyPartOfWhatADepartedStreamFreed() {
        VirtualClock clock = new VirtualClock();
        FlowScheduler s = new FlowScheduler(new ApplianceRates(profile), clock, FlowTrace.NONE);
        List<FlowScheduler.Flow> flows = new ArrayList<>();
        double cc = new Appliance(profile, FlowTrace.NONE, clock, false).clientSecondsPerByte();
        for (int i = 0; i < 3; i++) {
            FlowScheduler.Flow f = s.join(FlowScheduler.Kind.WRITE);
            s.update(f, x -> {
                x.client = FlowScheduler.Client.DEDUP;
                x.clientSecondsPerByte = cc;
            });
            flows.add(f);
        }
        // Two seconds of sending at a logical rate well below their fair share (an upstream limit).
        double slow = profile.liveBytesPerSecond(40);
        for (FlowScheduler.Flow f : flows) {
            s.ask(f, 1);
            f.logicalBytes = (long) (2 * slow);
            f.movedBytes = f.logicalBytes;
        }
        clock.advanceSeconds(2);
        s.leave(flows.get(2));
        double fairWire = profile.liveBytesPerSecond(profile.streamCapMBps(1));
        double fairLogical = 1 / (cc + 1 / fairWire);
        for (FlowScheduler.Flow f : flows.subList(0, 2)) {
            assertEquals(slow, f.startShare, slow * 1e-3);
            double logical = 1 / (cc + 1 / f.rate());
            assertEquals(profile.pooledRateMBps(f.startShare, fairLogical), logical, logical * 1e-6);
            assertTrue(logical < fairLogical, "a pooled stream does not get all the freed bandwidth");
        }
    }

    @Test
    void aStreamBusyWithItsOwnWorkDoesNotLeaveItsShareIdle() {
        VirtualClock clock = new VirtualClock();
        FlowScheduler s = new FlowScheduler(new ApplianceRates(profile), clock, FlowTrace.NONE);
        double cc = new Appliance(profile, FlowTrace.NONE, clock, false).clientSecondsPerByte();
        List<FlowScheduler.Flow> flows = new ArrayList<>();
        for (int i = 0; i < 80; i++) {
            flows.add(s.join(FlowScheduler.Kind.WRITE));
        }
        for (FlowScheduler.Flow f : flows) {
            s.update(f, x -> {
                x.client = FlowScheduler.Client.DEDUP;
                x.clientSecondsPerByte = cc;
                x.poolStreams = 80;
            });
        }
        // Each stream's throughput with its client's work in series: together, the appliance's capacity.
        double total = flows.stream().mapToDouble(f -> 1 / (cc + 1 / f.rate())).sum();
        assertEquals(profile.liveBytesPerSecond(profile.aggregateCapMBps(80)), total, total * 1e-9);
        assertTrue(flows.get(0).rate() > total / 80, "the wire runs faster than the share, to make up for the pauses");
    }

    @Test
    void aStreamThatHadNotStartedKeepsItsFairShare() {
        VirtualClock clock = new VirtualClock();
        FlowScheduler s = new FlowScheduler(new ApplianceRates(profile), clock, FlowTrace.NONE);
        List<FlowScheduler.Flow> flows = rawStreams(s, 2);
        s.leave(flows.get(1));
        assertTrue(Double.isNaN(flows.get(0).startShare));
        assertEquals(profile.liveBytesPerSecond(profile.streamCapMBps(2)), flows.get(0).rate(), 1e-6);
    }

    @Test
    void readsShareTheReadCapacity() {
        FlowScheduler s = new FlowScheduler(new ApplianceRates(profile), new VirtualClock(), FlowTrace.NONE);
        for (int n = 1; n <= 40; n++) {
            s.join(FlowScheduler.Kind.READ);
            double total = s.flows().stream().mapToDouble(FlowScheduler.Flow::rate).sum();
            double expected = Math.min(n * profile.liveBytesPerSecond(profile.streamReadCapMBps()),
                    profile.liveBytesPerSecond(profile.aggregateReadCapMBps(n)));
            assertEquals(expected, total, expected * 1e-9);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void waterFillIsMaxMinFair(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int n = 1 + r.nextInt(30);
        double[] caps = new double[n];
        for (int i = 0; i < n; i++) {
            caps[i] = r.nextDouble(1, 100);
        }
        double capacity = r.nextDouble(1, 100 * n);
        double[] share = ApplianceRates.waterFill(capacity, caps);
        double sum = 0;
        double max = 0;
        for (int i = 0; i < n; i++) {
            assertTrue(share[i] <= caps[i] + 1e-9, "never above a flow's cap");
            sum += share[i];
            max = Math.max(max, share[i]);
        }
        assertTrue(sum <= capacity + 1e-6, "never above the capacity");
        for (int i = 0; i < n; i++) {
            // Max-min: a flow below its cap has the largest share; else the capacity is all used.
            if (share[i] < caps[i] - 1e-9) {
                assertEquals(max, share[i], 1e-6);
            }
        }
        if (sum < capacity - 1e-6) {
            for (int i = 0; i < n; i++) {
                assertEquals(caps[i], share[i], 1e-9, "capacity left over only when every flow is at its cap");
            }
        }
    }
}
