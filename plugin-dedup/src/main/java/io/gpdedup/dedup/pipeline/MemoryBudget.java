package io.gpdedup.dedup.pipeline;

import io.gpdedup.plugin.api.PluginException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The heap that the data streams of one process (a host agent serves hundreds of calls) may fill,
 * reserved before a buffer is allocated, never after. Two areas:
 *
 * <ul>
 *   <li><b>Streams</b>: each stream is admitted with an allowance that covers its fixed buffers and
 *       one batch of its own. Admission is first come, first served; a stream that does not fit
 *       waits (at most the admission wait, 10 minutes by default) and then fails alone with a clear message. Its own
 *       batch is what guarantees every admitted stream progress: it never depends on what other
 *       streams hold, so a stream whose reader or writer pauses for minutes stalls nobody.</li>
 *   <li><b>Shared</b>: further batches in flight (fetch-ahead, upload pipelining), taken only when
 *       free, each stream at most {@link #shareLimit()} of it, so a few paused streams cannot take
 *       it all. Nothing ever waits for the shared area alone.</li>
 * </ul>
 *
 * Admission never waits for the shared area and batches never take from the streams area, so a
 * queued call waits only for admitted streams to end, never for a paused stream's fetch-ahead.
 */
public final class MemoryBudget {
    /** The part of the max heap given to streams; the rest is for everything else a process keeps. */
    static final int HEAP_FRACTION_DIVISOR = 2;
    static final Duration DEFAULT_ADMISSION_WAIT = Duration.ofMinutes(10);

    private final long streamsArea;
    private final long sharedArea;
    private final long shareLimit;
    private final Duration admissionWait;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final ArrayDeque<Object> queue = new ArrayDeque<>();
    private long streamsUsed;
    private int streams;
    private long sharedUsed;

    MemoryBudget(long streamsArea, long sharedArea, Duration admissionWait) {
        if (streamsArea <= 0 || sharedArea < 0) {
            throw new IllegalArgumentException("areas must be positive");
        }
        this.streamsArea = streamsArea;
        this.sharedArea = sharedArea;
        this.shareLimit = sharedArea / 4;
        this.admissionWait = admissionWait;
    }

    /**
     * Half of {@code maxHeapBytes} ({@link Runtime#maxMemory()}): 5/8 of it for streams, 3/8 shared.
     * Under the host agent's {@code -Xmx1g} that admits 72 backups of the default chunk sizes at once
     * (docs/dedup-plugin.md).
     */
    public static MemoryBudget ofHeap(long maxHeapBytes) {
        return of(maxHeapBytes / HEAP_FRACTION_DIVISOR);
    }

    /** A budget of {@code bytes}: 5/8 of it for streams, 3/8 shared. */
    public static MemoryBudget of(long bytes) {
        return new MemoryBudget(bytes / 8 * 5, bytes / 8 * 3, DEFAULT_ADMISSION_WAIT);
    }

    long streamsArea() {
        return streamsArea;
    }

    long sharedArea() {
        return sharedArea;
    }

    /** The most of the shared area one stream may hold. */
    long shareLimit() {
        return shareLimit;
    }

    /**
     * Admits a stream whose fixed buffers need {@code fixedBytes} and whose own batch needs
     * {@code ownBatchBytes}, waiting in line behind earlier streams; a stream larger than the whole
     * streams area is admitted alone.
     *
     * @throws PluginException when no room came within the admission wait
     */
    public Stream admit(long fixedBytes, long ownBatchBytes) throws IOException {
        long allowance = fixedBytes + ownBatchBytes;
        Object ticket = new Object();
        long left = admissionWait.toNanos();
        lock.lock();
        try {
            queue.addLast(ticket);
            try {
                while (queue.peekFirst() != ticket || (streams > 0 && streamsUsed + allowance > streamsArea)) {
                    if (left <= 0) {
                        throw new PluginException("no memory for another stream after waiting " + describe(admissionWait) + ": "
                                + streams + " streams in progress use the " + (streamsArea >> 20)
                                + " MiB this process gives them (calls beyond that queue; run fewer at once or give the host agent more heap)");
                    }
                    left = changed.awaitNanos(left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for memory for the stream");
            } finally {
                queue.remove(ticket);
                changed.signalAll();
            }
            streamsUsed += allowance;
            streams++;
            return new Stream(allowance, ownBatchBytes);
        } finally {
            lock.unlock();
        }
    }

    private static String describe(Duration d) {
        return d.toMinutes() > 0 && d.toSeconds() % 60 == 0 ? d.toMinutes() + " min" : d.toMillis() + " ms";
    }

    /** Streams admitted now. */
    int streams() {
        return locked(() -> streams);
    }

    /** Bytes reserved now, both areas. */
    long used() {
        return locked(() -> streamsUsed + sharedUsed);
    }

    /** Calls waiting for admission now. */
    int waiting() {
        return locked(queue::size);
    }

    private <T> T locked(java.util.function.Supplier<T> read) {
        lock.lock();
        try {
            return read.get();
        } finally {
            lock.unlock();
        }
    }

    /**
     * One admitted stream: its allowance, given back once the stream is closed and its own batch is
     * no longer in flight (a failed stream's last fetch may still be running when it closes).
     */
    public final class Stream implements AutoCloseable {
        private final long allowance;
        private final long ownBatchBytes;
        private boolean ownInUse;
        private long sharedHeld;
        private long retainedHeld;
        private boolean closed;
        private boolean returned;

        private Stream(long allowance, long ownBatchBytes) {
            this.allowance = allowance;
            this.ownBatchBytes = ownBatchBytes;
        }

        /**
         * Room for one batch: {@code sharedBytes} of the shared area if it has them (and this stream
         * holds less than its share), else the stream's own batch if it is not in flight; null when
         * neither and {@code wait} is false. With {@code wait}, blocks until one of them is free,
         * which the stream's own batch always becomes by itself.
         */
        public Reservation take(long sharedBytes, boolean wait) throws IOException {
            lock.lock();
            try {
                while (true) {
                    if (closed) {
                        throw new IllegalStateException("stream already closed");
                    }
                    if (sharedBytes <= sharedArea - sharedUsed && sharedHeld + sharedBytes <= shareLimit) {
                        sharedUsed += sharedBytes;
                        sharedHeld += sharedBytes;
                        return new Reservation(this, sharedBytes, false);
                    }
                    if (!ownInUse) {
                        ownInUse = true;
                        return new Reservation(this, ownBatchBytes, true);
                    }
                    if (!wait) {
                        return null;
                    }
                    try {
                        changed.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new InterruptedIOException("interrupted while waiting for memory for a batch");
                    }
                }
            } finally {
                lock.unlock();
            }
        }

        /**
         * Counts {@code bytes} a backup keeps for a failover (docs/dedup-plugin.md) in the shared
         * area, beside its batches and up to a share of its own; never waits: false when they do
         * not fit now (the backup then has its store upload them at once instead).
         */
        public boolean takeRetained(long bytes) {
            lock.lock();
            try {
                if (closed || bytes > sharedArea - sharedUsed || retainedHeld + bytes > shareLimit) {
                    return false;
                }
                sharedUsed += bytes;
                retainedHeld += bytes;
                return true;
            } finally {
                lock.unlock();
            }
        }

        /** Gives back bytes {@link #takeRetained} counted; what the stream's close gave back already is not given twice. */
        public void giveBackRetained(long bytes) {
            lock.lock();
            try {
                long n = Math.min(bytes, retainedHeld);
                sharedUsed -= n;
                retainedHeld -= n;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        /** Bytes counted by {@link #takeRetained} and not given back. */
        long retained() {
            return locked(() -> retainedHeld);
        }

        private void release(Reservation reservation) {
            lock.lock();
            try {
                if (reservation.own) {
                    ownInUse = false;
                } else {
                    sharedUsed -= reservation.bytes;
                    sharedHeld -= reservation.bytes;
                }
                giveBackIfDone();
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        private void giveBackIfDone() {
            if (closed && !ownInUse && !returned) {
                returned = true;
                streamsUsed -= allowance;
                streams--;
            }
        }

        @Override
        public void close() {
            lock.lock();
            try {
                closed = true;
                sharedUsed -= retainedHeld;
                retainedHeld = 0;
                giveBackIfDone();
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /** Room for one batch, given back once (further calls do nothing). */
    public static final class Reservation implements AutoCloseable {
        private final Stream stream;
        private final long bytes;
        private final boolean own;
        private boolean released;

        private Reservation(Stream stream, long bytes, boolean own) {
            this.stream = stream;
            this.bytes = bytes;
            this.own = own;
        }

        /** Whether this is the stream's own batch (sized for {@link PipelineSettings#ownBatchBytes()}). */
        public boolean own() {
            return own;
        }

        @Override
        public void close() {
            synchronized (this) {
                if (released) {
                    return;
                }
                released = true;
            }
            stream.release(this);
        }
    }
}
