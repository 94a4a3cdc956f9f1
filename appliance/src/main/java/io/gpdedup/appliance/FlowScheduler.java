package io.gpdedup.appliance;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The appliance's link as a fluid model: flows (backup streams, restore streams) join, move bytes
 * at the rate a {@link RatePolicy} assigns to each, and leave. Rates are reassigned whenever the set
 * of flows changes, and a flow waiting for its bytes is woken to use its new rate, so a stream
 * speeds up or slows down mid-transfer exactly when another one starts or finishes.
 *
 * <p>A flow that is not asking for bytes banks at most {@value #SLACK_MILLIS} ms of its rate: the
 * link cannot store idle time, but a stream must not lose bandwidth to the gaps between one
 * request's end and the next one's start (thread wake-ups, a busy CPU), which the real link does
 * not see either. Thread-safe; {@link #move} blocks the calling thread for the transfer time.
 */
final class FlowScheduler {
    /** Bytes below this are rounding, not work left. */
    private static final double DONE = 0.5;
    static final long SLACK_MILLIS = 200;
    private static final long SLACK_NANOS = SLACK_MILLIS * 1_000_000L;
    /** A flow given no rate rechecks this often, in case nothing signals it. */
    private static final long MAX_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** Gives every flow its rate (bytes per second) from the set of flows now joined. */
    interface RatePolicy {
        /**
         * Called whenever the set changes or a flow's parameters do.
         *
         * @param departed the flow that just left, if that is why (else null)
         */
        void assign(List<Flow> flows, Flow departed, long nowNanos);
    }

    /** What a flow carries; policies treat writes (backup) and reads (restore) differently. */
    enum Kind { WRITE, READ }

    /**
     * What kind of client a write stream turned out to be, from its first request: one that asks
     * which chunks are missing runs client-side dedup (the plugin); one that just sends is a raw
     * channel test (ddpconnchk-like).
     */
    enum Client { UNKNOWN, RAW, DEDUP }

    /** One stream on the link. Its fields are guarded by the scheduler's lock. */
    static final class Flow {
        final long id;
        final Kind kind;
        /** Flows of the same kind joined when this one joined, itself included. */
        final int peersAtJoin;
        final long joinedNanos;
        double rate;
        /** Bytes still to move. */
        double owed;
        /** Seconds of the stream's own work still to do before its bytes move (the client's, in series). */
        double owedSeconds;
        /** Time it owed nothing and could have moved bytes, at most {@link #SLACK_NANOS}. */
        long slackNanos;
        long movedBytes;
        String label = "";
        /** When it first asked to move bytes; 0 until then. */
        long firstAskNanos;
        // Set by the flow's owner (then {@link #update}), read by the policy:
        Client client = Client.UNKNOWN;
        /** Streams of the client session this flow belongs to, which sized the session's pool. */
        int poolStreams = 1;
        /** Client work per logical byte in series with the transfer (0 for a raw channel stream). */
        double clientSecondsPerByte;
        /** Logical (uncompressed) bytes the stream has carried, duplicates excepted. */
        long logicalBytes;
        // The policy's own state:
        /** Logical bytes per second the stream was getting when its pool was first thinned out; NaN before. */
        double startShare = Double.NaN;
        private final FlowTrace.Series series;

        private Flow(long id, Kind kind, int peersAtJoin, long joinedNanos, FlowTrace.Series series) {
            this.id = id;
            this.kind = kind;
            this.peersAtJoin = peersAtJoin;
            this.joinedNanos = joinedNanos;
            this.series = series;
        }

        double rate() {
            return rate;
        }

        @Override
        public String toString() {
            return kind + "#" + id + (label.isEmpty() ? "" : "(" + label + ")") + " @" + Math.round(rate) + " B/s";
        }
    }

    private final RatePolicy policy;
    private final ApplianceClock clock;
    private final FlowTrace trace;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final List<Flow> flows = new ArrayList<>();
    private long nextId = 1;
    private long lastAdvance;

    FlowScheduler(RatePolicy policy, ApplianceClock clock, FlowTrace trace) {
        this.policy = policy;
        this.clock = clock;
        this.trace = trace;
        this.lastAdvance = clock.nanos();
    }

    Flow join(Kind kind) {
        lock.lock();
        try {
            advance();
            int peers = 1;
            for (Flow f : flows) {
                peers += f.kind == kind ? 1 : 0;
            }
            Flow f = new Flow(nextId++, kind, peers, lastAdvance, trace.series(kind));
            flows.add(f);
            reassign(null);
            return f;
        } finally {
            lock.unlock();
        }
    }

    /** Ends a flow; what it still owed is dropped (its caller gave up). Idempotent. */
    void leave(Flow f) {
        lock.lock();
        try {
            advance();
            if (flows.remove(f)) {
                f.owed = 0;
                reassign(f);
                trace.finish(f.series, f.label, f.movedBytes);
            }
        } finally {
            lock.unlock();
        }
    }

    void label(Flow f, String label) {
        lock.lock();
        try {
            f.label = label;
        } finally {
            lock.unlock();
        }
    }

    /** Changes a flow's parameters (under the scheduler's lock) and reassigns rates. */
    void update(Flow f, java.util.function.Consumer<Flow> change) {
        lock.lock();
        try {
            advance();
            change.accept(f);
            reassign(null);
        } finally {
            lock.unlock();
        }
    }

    /** Moves {@code bytes} over the link for {@code f}: returns once they have gone at its rate(s). */
    void move(Flow f, long bytes) throws InterruptedException {
        move(f, bytes, 0, 0);
    }

    /**
     * As {@link #move(Flow, long)}, counting {@code logical} uncompressed bytes carried by them, and
     * first spending {@code workSeconds} of the stream's own work (in series: no bytes move meanwhile).
     */
    void move(Flow f, long bytes, long logical, double workSeconds) throws InterruptedException {
        if (bytes <= 0 && workSeconds <= 0) {
            return;
        }
        lock.lock();
        try {
            f.logicalBytes += logical;
            long wait = ask(f, bytes, workSeconds);
            while (wait > 0) {
                clock.await(changed, wait);
                wait = remaining(f);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Adds {@code bytes} to what {@code f} owes and returns the nanoseconds until it is done at the
     * current rates. With {@link #remaining} this is {@link #move} without blocking, for tests.
     */
    long ask(Flow f, long bytes) {
        return ask(f, bytes, 0);
    }

    long ask(Flow f, long bytes, double workSeconds) {
        lock.lock();
        try {
            advance();
            if (f.firstAskNanos == 0) {
                f.firstAskNanos = lastAdvance;
            }
            double slack = f.slackNanos / 1e9;
            f.slackNanos = 0;
            double work = Math.min(slack, workSeconds);
            slack -= work;
            f.owedSeconds += workSeconds - work;
            double fromSlack = Math.min(slack * f.rate, bytes);
            if (fromSlack >= 1) {
                long whole = Math.round(fromSlack);
                f.movedBytes += whole;
                trace.record(f.series, lastAdvance, lastAdvance + 1, whole);
            }
            f.owed += bytes - fromSlack;
            return nanosLeft(f);
        } finally {
            lock.unlock();
        }
    }

    /** Nanoseconds until {@code f} has moved what it asked for; 0 when done. */
    long remaining(Flow f) {
        lock.lock();
        try {
            advance();
            return nanosLeft(f);
        } finally {
            lock.unlock();
        }
    }

    /** Flows joined now (copies of their rates, for reports and tests). */
    List<Flow> flows() {
        lock.lock();
        try {
            return List.copyOf(flows);
        } finally {
            lock.unlock();
        }
    }

    private long nanosLeft(Flow f) {
        if (!flows.contains(f)) {
            f.owed = 0;
            f.owedSeconds = 0;
            return 0;
        }
        if (f.owed <= DONE) {
            f.owed = 0;
        }
        if (f.owed == 0 && f.owedSeconds <= 0) {
            f.owedSeconds = 0;
            return 0;
        }
        if (f.owed > 0 && f.rate <= 0) {
            return MAX_WAIT_NANOS;
        }
        double seconds = f.owedSeconds + (f.owed > 0 ? f.owed / f.rate : 0);
        return Math.max(1, Math.min(MAX_WAIT_NANOS * 3600, (long) Math.ceil(seconds * 1e9)));
    }

    /** Brings every flow's owed bytes up to now at the rates that held since the last event. */
    private void advance() {
        long now = clock.nanos();
        long dt = now - lastAdvance;
        if (dt <= 0) {
            return;
        }
        for (Flow f : flows) {
            // The stream's own work comes first, then its bytes at its rate; time left over is slack.
            double t = dt / 1e9;
            double work = Math.min(t, f.owedSeconds);
            f.owedSeconds -= work;
            t -= work;
            if (f.owed > 0 && f.rate > 0 && t > 0) {
                double can = f.rate * t;
                double moved = Math.min(can, f.owed);
                long from = lastAdvance + (long) (work * 1e9);
                long end = moved < can ? from + (long) Math.ceil(moved / f.rate * 1e9) : now;
                f.owed -= moved;
                t -= moved / f.rate;
                if (f.owed <= DONE) {
                    moved += f.owed;
                    f.owed = 0;
                }
                long whole = Math.round(moved);
                f.movedBytes += whole;
                trace.record(f.series, from, end, whole);
            }
            if (f.owed <= 0 && f.owedSeconds <= 0 && t > 0) {
                f.slackNanos = Math.min(SLACK_NANOS, f.slackNanos + (long) (t * 1e9));
            }
        }
        lastAdvance = now;
    }

    private void reassign(Flow departed) {
        policy.assign(List.copyOf(flows), departed, lastAdvance);
        changed.signalAll();
    }
}
