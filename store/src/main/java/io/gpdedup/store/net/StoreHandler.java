package io.gpdedup.store.net;

import io.gpdedup.protocol.concurrent.Futures;
import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.FrameCodec;
import io.gpdedup.protocol.wire.MessageType;
import io.gpdedup.protocol.wire.Reply;
import io.gpdedup.protocol.wire.Request;
import io.gpdedup.protocol.wire.StoreProtocolException;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;

/**
 * The authenticated part of a connection: hands each request to the engine executor (ordered ones
 * through the connection's {@link OrderedQueue}), writes the replies, applies back-pressure by
 * pausing reads when too much is in flight (a request counts until its last reply has been written
 * to the socket, so a client that asks and never reads stops being read), and aborts the
 * connection's leases once the reconnect grace after it closed has passed.
 */
public final class StoreHandler extends ChannelInboundHandlerAdapter {
    /** Above either, the connection stops being read until half has been served. */
    public static final int MAX_IN_FLIGHT_REQUESTS = 64;
    static final long MAX_IN_FLIGHT_BYTES = 64L << 20;

    private static final System.Logger LOG = System.getLogger(StoreHandler.class.getName());

    private final ServerContext server;
    private final StoreSession session;
    private final int maxQueued;
    /** Requests refused at {@link #maxQueued}: logged once per connection. */
    private long refusedQueued;
    private final OrderedQueue ordered;
    private final SplitReplyWriter splits;
    // Confined to the channel's event loop.
    private int inFlight;
    private long inFlightBytes;
    /** Of those in flight, the ones served whose last reply still waits for the client to read it. */
    private int unread;
    private boolean paused;
    /** Requests read while paused (one socket read holds many small ones): served once it resumes. */
    private final ArrayDeque<Object> waiting = new ArrayDeque<>();

    public StoreHandler(ServerContext server, StoreSession session, Channel channel) {
        this.server = server;
        this.session = session;
        this.maxQueued = server.config.connectionLimits().holds().maxQueuedRequests();
        this.ordered = new OrderedQueue(server.executor);
        this.splits = new SplitReplyWriter(channel, server.executor);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (paused || !waiting.isEmpty()) {
            if (inFlight + waiting.size() >= maxQueued) {
                refuse(ctx, msg);
                return;
            }
            waiting.add(msg);
            return;
        }
        receive(ctx, msg);
    }

    /** Answers a request beyond max-queued-requests with an error, unserved; the connection goes on. */
    private void refuse(ChannelHandlerContext ctx, Object msg) {
        Frame frame = msg instanceof HeldFrame held ? held.frame() : (Frame) msg;
        if (msg instanceof HeldFrame held) {
            held.release();
        }
        server.metrics.limitReached("queued-requests");
        if (refusedQueued++ == 0) {
            LOG.log(System.Logger.Level.WARNING, "user '" + session.user + "' of unit '" + session.unit.name() + "' sent more than "
                    + maxQueued + " requests without waiting for replies (max-queued-requests): refusing those beyond");
        }
        ctx.channel().writeAndFlush(Frame.of(frame.requestId(), new Reply.Error(ErrorCode.BAD_REQUEST, frame.type() + " refused: "
                + (inFlight + waiting.size()) + " requests of this connection are already queued or being served, the store's"
                + " max-queued-requests; wait for their replies")));
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
                Throwable cause = Futures.cause(e);
                // Only a refusal of the stopping executor means that; anything else (an Error too) is the server's fault.
                replies.last(cause instanceof RejectedExecutionException
                        ? new Reply.Error(ErrorCode.SHUTTING_DOWN, "server is stopping: " + request.type() + " not run")
                        : StoreRequests.errorFor(cause, request, session.version));
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
            // Idle only counts when nothing is being served: a long VERIFY is not idleness, an unread reply is,
            // and so is a split reply parked until the client reads (the socket's buffer full all along).
            if (inFlight == unread || !ctx.channel().isWritable()) {
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
        public CompletionStage<Void> split(SplitReply<?> reply) {
            return splits.write(requestId, reply, this::last);
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
