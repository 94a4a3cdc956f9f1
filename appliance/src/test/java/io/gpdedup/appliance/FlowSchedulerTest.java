package io.gpdedup.appliance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FlowSchedulerTest {
    /** 100 bytes/s shared equally by whoever is joined. */
    private static final FlowScheduler.RatePolicy EQUAL = (flows, departed, now) -> flows.forEach(f -> f.rate = 100.0 / flows.size());

    @Test
    void flowSpeedsUpMidTransferWhenAnotherLeaves() {
        VirtualClock clock = new VirtualClock();
        FlowScheduler s = new FlowScheduler(EQUAL, clock, FlowTrace.NONE);
        FlowScheduler.Flow a = s.join(FlowScheduler.Kind.WRITE);
        FlowScheduler.Flow b = s.join(FlowScheduler.Kind.WRITE);
        assertEquals(2.0, s.ask(a, 100) / 1e9, 1e-6, "100 bytes at 50 B/s");
        clock.advanceSeconds(1);
        s.leave(b);
        assertEquals(0.5, s.remaining(a) / 1e9, 1e-6, "50 bytes left, now at 100 B/s");
        clock.advanceSeconds(0.5);
        assertEquals(0, s.remaining(a));
        assertEquals(100, a.movedBytes);
    }

    @Test
    void idleFlowBanksOnlyTheSlack() {
        VirtualClock clock = new VirtualClock();
        FlowScheduler s = new FlowScheduler(EQUAL, clock, FlowTrace.NONE);
        FlowScheduler.Flow a = s.join(FlowScheduler.Kind.WRITE);
        clock.advanceSeconds(10);
        double slack = FlowScheduler.SLACK_MILLIS / 1000.0;
        assertEquals(1.0 - slack, s.ask(a, 100) / 1e9, 1e-6, "ten idle seconds give only the slack of the next 100 bytes");
        clock.advanceSeconds(1.0 - slack);
        assertEquals(0, s.remaining(a));
        assertEquals(1.0, s.ask(a, 100) / 1e9, 1e-6, "no idle time, no slack");
    }

    @Test
    void ownWorkComesBeforeTheBytesAndEarnsNoSlack() throws InterruptedException {
        VirtualClock clock = new VirtualClock();
        FlowScheduler s = new FlowScheduler(EQUAL, clock, FlowTrace.NONE);
        FlowScheduler.Flow a = s.join(FlowScheduler.Kind.WRITE);
        long t0 = clock.now;
        s.move(a, 100, 100, 0.5);
        assertEquals(1.5, clock.seconds(t0), 1e-6, "half a second of work, then 100 bytes at 100 B/s");
        t0 = clock.now;
        s.move(a, 100, 100, 0.5);
        assertEquals(1.5, clock.seconds(t0), 1e-6, "in series again: the work was not slack");
    }

    @Test
    void aLateNextRequestDoesNotLoseTheGap() {
        VirtualClock clock = new VirtualClock();
        FlowScheduler s = new FlowScheduler(EQUAL, clock, FlowTrace.NONE);
        FlowScheduler.Flow a = s.join(FlowScheduler.Kind.WRITE);
        s.ask(a, 100);
        clock.advanceSeconds(1.05);
        assertEquals(0, s.remaining(a));
        // The thread woke 50 ms late: the next 100 bytes take 50 ms less.
        assertEquals(0.95, s.ask(a, 100) / 1e9, 1e-6);
    }

    @Test
    void moveWaitsItsTransferTimeAndCountsLogicalBytes() throws InterruptedException {
        VirtualClock clock = new VirtualClock();
        FlowScheduler s = new FlowScheduler(EQUAL, clock, FlowTrace.NONE);
        FlowScheduler.Flow a = s.join(FlowScheduler.Kind.WRITE);
        long t0 = clock.now;
        s.move(a, 250, 1000, 0);
        assertEquals(2.5, clock.seconds(t0), 1e-6);
        assertEquals(1000, a.logicalBytes);
        assertEquals(t0, a.firstAskNanos);
    }

    @Test
    void leftFlowOwesNothingAndLeavingTwiceIsHarmless() {
        VirtualClock clock = new VirtualClock();
        FlowScheduler s = new FlowScheduler(EQUAL, clock, FlowTrace.NONE);
        FlowScheduler.Flow a = s.join(FlowScheduler.Kind.WRITE);
        s.ask(a, 1000);
        s.leave(a);
        s.leave(a);
        assertEquals(0, s.remaining(a));
        assertTrue(s.flows().isEmpty());
    }

    @Test
    void policyHearsWhoDepartedAndPeersAtJoinCountTheSameKind() {
        VirtualClock clock = new VirtualClock();
        FlowScheduler.Flow[] seen = new FlowScheduler.Flow[1];
        FlowScheduler s = new FlowScheduler((flows, departed, now) -> {
            flows.forEach(f -> f.rate = 1);
            if (departed != null) {
                seen[0] = departed;
            }
        }, clock, FlowTrace.NONE);
        FlowScheduler.Flow w1 = s.join(FlowScheduler.Kind.WRITE);
        FlowScheduler.Flow r1 = s.join(FlowScheduler.Kind.READ);
        FlowScheduler.Flow w2 = s.join(FlowScheduler.Kind.WRITE);
        assertEquals(1, w1.peersAtJoin);
        assertEquals(1, r1.peersAtJoin);
        assertEquals(2, w2.peersAtJoin);
        s.leave(w1);
        assertEquals(w1, seen[0]);
    }

    @Test
    void traceSpreadsBytesOverBucketsAndLabelsRows(@TempDir Path dir) throws Exception {
        VirtualClock clock = new VirtualClock();
        Path file = dir.resolve("trace.csv");
        try (FlowTrace trace = FlowTrace.open(file, clock.now)) {
            FlowScheduler s = new FlowScheduler(EQUAL, clock, trace);
            FlowScheduler.Flow a = s.join(FlowScheduler.Kind.WRITE);
            s.label(a, "dir/backups/20250101/20250101000000/a,b");
            s.move(a, 35, 35, 0);
            s.leave(a);
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        assertEquals(FlowTrace.HEADER, lines.get(0));
        long total = 0;
        for (String line : lines.subList(1, lines.size())) {
            assertTrue(line.startsWith("write,1,\"dir/backups/20250101/20250101000000/a,b\","), line);
            total += Long.parseLong(line.substring(line.lastIndexOf(',') + 1));
        }
        assertEquals(35, total, "every byte lands in some bucket");
        assertEquals(1 + 4, lines.size(), "0.35 s at 100 B/s spans four 100 ms buckets");
    }
}
