package io.gpdedup.store.net;

import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.Reply;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * Produces and writes one connection's replies that may take several frames, so that a client
 * that asks and never reads holds no engine thread and little memory. Up to {@link #PRODUCERS}
 * replies of a connection are produced at once (a restore's fetches of one frame each run side by
 * side); a reply that turns out to need more frames must own the connection's one writing slot:
 * without it, it drops the frame it made (to be made again, not kept) and waits its turn. The owner
 * produces a frame once the one before the last written has reached the socket (at most two wait
 * for the client); until then it is parked on that write, and the write's completion hands it back
 * to the executor.
 */
final class SplitReplyWriter {
    static final int PRODUCERS = 4;

    private final Channel channel;
    private final Executor executor;
    /** Not started: nothing produced yet. */
    private final ArrayDeque<Job> toStart = new ArrayDeque<>();
    /** Split replies waiting for the writing slot, having dropped what they made. */
    private final ArrayDeque<Job> toWrite = new ArrayDeque<>();
    private int producing;
    private Job writing;

    private static final class Job {
        final int requestId;
        final SplitReply<?> reply;
        final Consumer<Reply> last;
        final CompletableFuture<Void> done = new CompletableFuture<>();
        /** Holds the writing slot (and no producer's place). */
        boolean owner;
        /** The part written before the latest one: the next is produced once it has gone out. */
        ChannelFuture previous;

        Job(int requestId, SplitReply<?> reply, Consumer<Reply> last) {
            this.requestId = requestId;
            this.reply = reply;
            this.last = last;
        }
    }

    SplitReplyWriter(Channel channel, Executor executor) {
        this.channel = channel;
        this.executor = executor;
    }

    /** Starts {@code reply}, or queues it behind the connection's others; {@code last} takes its final frame. */
    CompletableFuture<Void> write(int requestId, SplitReply<?> reply, Consumer<Reply> last) {
        Job job = new Job(requestId, reply, last);
        boolean start;
        synchronized (this) {
            start = producing < PRODUCERS;
            if (start) {
                producing++;
            } else {
                toStart.add(job);
            }
        }
        if (start) {
            resume(job);
        }
        return job.done;
    }

    private void resume(Job job) {
        try {
            executor.execute(() -> produce(job));
        } catch (RuntimeException stopping) {
            finish(job, stopping);
        }
    }

    /** Runs on the executor: produces and writes frames until the reply is done or has to wait. */
    private void produce(Job job) {
        try {
            while (true) {
                if (!channel.isActive()) {
                    // Nobody left to read it: whatever is still unread is dropped.
                    finish(job, null);
                    return;
                }
                Reply r = job.reply.next();
                if (job.reply.finished()) {
                    job.last.accept(r);
                    finish(job, null);
                    return;
                }
                if (!job.owner && !takeSlot(job)) {
                    return;
                }
                ChannelFuture written = channel.writeAndFlush(new Frame(job.requestId, true, r));
                ChannelFuture before = job.previous;
                job.previous = written;
                if (before != null && !before.isDone()) {
                    before.addListener(f -> resume(job));
                    return;
                }
            }
        } catch (RuntimeException | Error e) {
            finish(job, e);
        }
    }

    /** The writing slot for a reply that needs more than one frame; false: it waits its turn, holding nothing. */
    private boolean takeSlot(Job job) {
        Job started;
        boolean taken;
        synchronized (this) {
            producing--;
            taken = writing == null;
            if (taken) {
                writing = job;
                job.owner = true;
            } else {
                // From here on another thread may give it the slot and go on with it: this one leaves it alone.
                job.reply.restart();
                toWrite.add(job);
            }
            started = startNext();
        }
        if (started != null) {
            resume(started);
        }
        return taken;
    }

    /** A queued reply given the producer's place just freed, if any; under the lock. */
    private Job startNext() {
        Job next = producing < PRODUCERS ? toStart.poll() : null;
        if (next != null) {
            producing++;
        }
        return next;
    }

    private void finish(Job job, Throwable failure) {
        Job nextWriter = null;
        Job started;
        synchronized (this) {
            if (job.owner) {
                nextWriter = toWrite.poll();
                writing = nextWriter;
                if (nextWriter != null) {
                    nextWriter.owner = true;
                }
            } else {
                producing--;
            }
            started = startNext();
        }
        if (failure == null) {
            job.done.complete(null);
        } else {
            job.done.completeExceptionally(failure);
        }
        if (nextWriter != null) {
            resume(nextWriter);
        }
        if (started != null) {
            resume(started);
        }
    }
}
