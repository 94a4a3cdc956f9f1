package io.gpdedup.store.server;

import io.gpdedup.store.protocol.ErrorCode;
import io.gpdedup.store.protocol.Frame;
import io.gpdedup.store.protocol.FrameCodec;
import io.gpdedup.store.protocol.MessageType;
import io.gpdedup.store.protocol.Reply;
import io.gpdedup.store.protocol.Request;
import io.gpdedup.store.protocol.StoreProtocolException;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The authenticated part of a connection: hands each request to the engine executor (ordered ones
 * through the connection's {@link OrderedQueue}), writes the replies, applies back-pressure by
 * pausing reads when too much is in flight (a request counts until its last reply has been written
 * to the socket, so a client that asks and never reads stops being read), and aborts the
 * connection's leases once the reconnect grace after it closed has passed.
 */
final class StoreHandler extends ChannelInboundHandlerAdapter {
    /** Above either, the connection stops being read until half has been served. */
    static final int MAX_IN_FLIGHT_REQUESTS = 64;
    static final long MAX_IN_FLIGHT_BYTES = 64L << 20;

    private final ServerContext server;
    private final StoreSession session;
    private final OrderedQueue ordered;
    // Confined to the channel's event loop.
    private int inFlight;
    private long inFlightBytes;
    /** Of those in flight, the ones served whose last reply still waits for the client to read it. */
    private int unread;
    private boolean paused;
    /** Requests read while paused (one socket read holds many small ones): served once it resumes. */
    private final ArrayDeque<Object> waiting = new ArrayDeque<>();

    StoreHandler(ServerContext server, StoreSession session) {
        this.server = server;
        this.session = session;
        this.ordered = new OrderedQueue(server.executor);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (paused || !waiting.isEmpty()) {
            waiting.add(msg);
            return;
        }
        receive(ctx, msg);
    }

    private void receive(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof HeldFrame held)) {
            accept(ctx, (Frame) msg);
            return;
        }
        CompletableFuture<Void> accepted = null;
        try {
            accepted = accept(ctx, held.frame());
        } finally {
            if (accepted == null) {
                held.release();
            } else {
                accepted.whenComplete((v, e) -> held.release());
            }
        }
    }

    /** Starts serving a request; what completes once it is served, or null if it was turned away. */
    private CompletableFuture<Void> accept(ChannelHandlerContext ctx, Frame frame) {
        if (!(frame.message() instanceof Request request) || request instanceof Request.Hello || request instanceof Request.Auth) {
            throw new StoreProtocolException(ErrorCode.PROTOCOL_VIOLATION, frame.type() + " is not allowed after AUTH_OK");
        }
        Channel channel = ctx.channel();
        Integer version = channel.attr(HandshakeHandler.VERSION).get();
        if (version != null && request.type().sinceVersion() > version) {
            // What a server of that version would say: the type does not exist there.
            throw new StoreProtocolException(ErrorCode.MALFORMED_FRAME, "unknown message type 0x" + Integer.toHexString(request.type().code())
                    + " in protocol version " + version);
        }
        int id = frame.requestId();
        if (!server.gate.enter()) {
            channel.writeAndFlush(Frame.of(id, new Reply.Error(ErrorCode.SHUTTING_DOWN, "server is stopping: " + frame.type() + " not run")));
            return null;
        }
        long bytes = FrameCodec.frameLength(frame);
        inFlight++;
        inFlightBytes += bytes;
        pauseIfFull(channel);
        long start = System.nanoTime();
        ChannelReplies replies = new ChannelReplies(channel, id);
        CompletableFuture<Void> done;
        try {
            if (request.type().ordered()) {
                done = ordered.submit(() -> serve(request, replies));
            } else {
                done = CompletableFuture.supplyAsync(() -> serve(request, replies), server.executor).thenCompose(s -> s);
            }
        } catch (RejectedExecutionException e) {
            done = CompletableFuture.failedFuture(e);
        }
        return done.whenComplete((v, e) -> {
            if (e != null && !replies.answered) {
                replies.last(new Reply.Error(ErrorCode.SHUTTING_DOWN, "server is stopping: " + request.type() + " not run"));
            }
            server.metrics.request(request.type(), System.nanoTime() - start, replies.ok);
            server.gate.exit();
            ctx.executor().execute(() -> served(ctx, bytes, replies));
        });
    }

    private CompletionStage<Void> serve(Request request, ChannelReplies replies) {
        if (session.closed()) {
            // The client is gone: running what it queued would only do work nobody sees.
            return CompletableFuture.completedFuture(null);
        }
        return server.requests.serve(session, request, replies);
    }

    private void pauseIfFull(Channel channel) {
        if (!paused && (inFlight > MAX_IN_FLIGHT_REQUESTS || inFlightBytes > MAX_IN_FLIGHT_BYTES)) {
            paused = true;
            channel.config().setAutoRead(false);
        }
    }

    private void served(ChannelHandlerContext ctx, long bytes, ChannelReplies replies) {
        ChannelFuture reply = replies.lastWrite;
        if (reply == null || reply.isDone()) {
            finished(ctx, bytes);
            return;
        }
        // Its pooled frame is held until the client reads it: in flight until then.
        long replyBytes = FrameCodec.frameLength(replies.lastFrame);
        unread++;
        inFlightBytes += replyBytes;
        pauseIfFull(ctx.channel());
        reply.addListener(f -> {
            unread--;
            finished(ctx, bytes + replyBytes);
        });
    }

    private void finished(ChannelHandlerContext ctx, long bytes) {
        Channel channel = ctx.channel();
        inFlight--;
        inFlightBytes -= bytes;
        if (paused && inFlight <= MAX_IN_FLIGHT_REQUESTS / 2 && inFlightBytes <= MAX_IN_FLIGHT_BYTES / 2) {
            paused = false;
            serveWaiting(ctx);
            if (!paused && !ProtocolErrorHandler.failed(channel)) {
                channel.config().setAutoRead(true);
            }
        }
    }

    private void serveWaiting(ChannelHandlerContext ctx) {
        while (!paused && !waiting.isEmpty()) {
            if (ProtocolErrorHandler.failed(ctx.channel()) || !ctx.channel().isActive()) {
                dropWaiting();
                return;
            }
            try {
                receive(ctx, waiting.poll());
            } catch (RuntimeException e) {
                ctx.fireExceptionCaught(e);
            }
        }
    }

    private void dropWaiting() {
        for (Object msg; (msg = waiting.poll()) != null;) {
            if (msg instanceof HeldFrame held) {
                held.release();
            }
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        session.markClosed();
        dropWaiting();
        // Behind everything this connection queued: a commit already running completes first.
        try {
            ordered.submit(() -> {
                session.abortAllAfter(server.config.reconnectGrace(), ctx.channel().eventLoop(), server.executor);
                return CompletableFuture.completedFuture(null);
            });
        } catch (RejectedExecutionException e) {
            session.abortAll();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            // Idle only counts when nothing is being served: a long VERIFY is not idleness, an unread reply is.
            if (inFlight == unread) {
                ctx.close();
            }
        } else {
            ctx.fireUserEventTriggered(evt);
        }
    }

    /** Replies of one request, written from whichever executor thread serves it. */
    private final class ChannelReplies implements ReplySink {
        private final Channel channel;
        private final int requestId;
        volatile boolean answered;
        volatile boolean ok;
        volatile Frame lastFrame;
        volatile ChannelFuture lastWrite;

        ChannelReplies(Channel channel, int requestId) {
            this.channel = channel;
            this.requestId = requestId;
        }

        @Override
        public void part(Reply reply) {
            ChannelFuture written = channel.writeAndFlush(new Frame(requestId, true, reply));
            long timeout = server.config.idleTimeout().toNanos();
            boolean finished;
            try {
                finished = written.await(timeout, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new UncheckedIOException(new IOException("interrupted while sending a reply"));
            }
            if (!finished) {
                channel.close();
                throw new UncheckedIOException(new IOException("client did not read a reply part within " + server.config.idleTimeout()));
            }
            if (!written.isSuccess()) {
                throw new UncheckedIOException(new IOException("sending a reply part failed", written.cause()));
            }
        }

        @Override
        public void last(Reply reply) {
            Frame frame = Frame.of(requestId, reply);
            answered = true;
            ok = reply.type() != MessageType.ERROR;
            lastFrame = frame;
            lastWrite = channel.writeAndFlush(frame);
        }
    }
}
