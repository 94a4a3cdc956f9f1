package io.gpdedup.store.server;

import io.gpdedup.store.protocol.Frame;
import io.gpdedup.store.protocol.Reply;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * Writes one connection's split replies, one reply at a time, so that a client that asks and
 * never reads holds at most one reply's next frames and no engine thread. A frame is produced on
 * the engine executor once the one before the last written has reached the socket: at most two
 * frames of the connection wait in memory for the client. Until then the reply is parked (no
 * thread waits) and the write's completion hands it back to the executor.
 */
final class SplitReplyWriter {
    private final Channel channel;
    private final Executor executor;
    private final ArrayDeque<Job> queued = new ArrayDeque<>();
    private boolean busy;

    private static final class Job {
        final int requestId;
        final SplitReply<?> reply;
        final Consumer<Reply> last;
        final CompletableFuture<Void> done = new CompletableFuture<>();
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

    /** Queues {@code reply} behind the connection's others; {@code last} takes its final frame. */
    CompletableFuture<Void> write(int requestId, SplitReply<?> reply, Consumer<Reply> last) {
        Job job = new Job(requestId, reply, last);
        boolean start;
        synchronized (this) {
            start = !busy;
            busy = true;
            if (!start) {
                queued.add(job);
            }
        }
        if (start) {
            resume(job);
        }
        return job.done;
    }

    /** Whether a split reply is being written or waits its turn. */
    synchronized boolean active() {
        return busy;
    }

    private void resume(Job job) {
        try {
            executor.execute(() -> produce(job));
        } catch (RuntimeException stopping) {
            finish(job, stopping);
        }
    }

    /** Runs on the executor: writes frames until one has to wait for the client. */
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

    private void finish(Job job, Throwable failure) {
        Job next;
        synchronized (this) {
            next = queued.poll();
            busy = next != null;
        }
        if (failure == null) {
            job.done.complete(null);
        } else {
            job.done.completeExceptionally(failure);
        }
        if (next != null) {
            resume(next);
        }
    }
}
