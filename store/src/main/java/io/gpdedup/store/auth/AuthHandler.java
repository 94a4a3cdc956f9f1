package io.gpdedup.store.auth;

import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.Reply;
import io.gpdedup.protocol.wire.Request;
import io.gpdedup.protocol.wire.StoreProtocolException;
import io.gpdedup.store.engine.StorageUnit;
import io.gpdedup.store.engine.UnitNotServedException;
import io.gpdedup.store.net.ConnectionLimiter;
import io.gpdedup.store.net.FrameDecoder;
import io.gpdedup.store.net.FrameMemory;
import io.gpdedup.store.net.HandshakeHandler;
import io.gpdedup.store.net.ProtocolErrorHandler;
import io.gpdedup.store.net.ServerContext;
import io.gpdedup.store.net.StoreHandler;
import io.gpdedup.store.net.StoreSession;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * AUTH: asks the {@link LoginThrottle} whether the attempt may be checked now (if not, answers
 * {@code THROTTLED} at once), checks the password (PBKDF2, on the engine executor: it is slow on
 * purpose), keeps a failed attempt in flight as long as the throttle says and holds its reply back
 * for as much of that as a client waits; on success binds the connection to its storage unit by
 * putting a {@link StoreHandler} in its place, or, for a unit this store is the standby of, answers
 * {@code NOT_SERVED} and closes. Nothing but AUTH is accepted before that.
 */
public final class AuthHandler extends ChannelInboundHandlerAdapter {
    private static final System.Logger LOG = System.getLogger(AuthHandler.class.getName());
    /**
     * The longest a failure's reply is held back, well within any client's handshake timeout: the
     * attempt still counts as in flight for the throttle's whole delay, so the next guess waits as
     * long, and the client learns why it must instead of timing out.
     */
    static final long MAX_HOLD_BACK_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final ServerContext server;
    private final ConnectionLimiter.Admission admission;
    private boolean checking;

    public AuthHandler(ServerContext server, ConnectionLimiter.Admission admission) {
        this.server = server;
        this.admission = admission;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Frame frame = (Frame) msg;
        if (checking || !(frame.message() instanceof Request.Auth auth)) {
            throw new StoreProtocolException(ErrorCode.PROTOCOL_VIOLATION,
                    (checking ? "request before AUTH_OK: " : "expected AUTH, got ") + frame.type());
        }
        checking = true;
        admission.loginStarted();
        InetAddress from = ((InetSocketAddress) ctx.channel().remoteAddress()).getAddress();
        LoginThrottle.Decision decision = server.throttle.admit(from, auth.user());
        if (decision instanceof LoginThrottle.Refused refused) {
            server.metrics.loginThrottled();
            server.refusals.note("logins throttled", from);
            ProtocolErrorHandler.fail(ctx.channel(), ErrorCode.THROTTLED, refused.message());
            return;
        }
        LoginThrottle.Ticket ticket = ((LoginThrottle.Admitted) decision).ticket();
        Runnable check = () -> {
            boolean ok;
            StorageUnit unit = null;
            try {
                ok = server.authenticator.verify(auth.unit(), auth.user(), auth.password());
                if (ok) {
                    unit = server.engine.unit(auth.unit());
                }
            } catch (UnitNotServedException e) {
                ticket.succeeded(); // the password was right: the unit is just another store's now
                ticket.release();
                notServed(ctx, auth, from, e);
                return;
            } catch (RuntimeException e) {
                ticket.release();
                LOG.log(System.Logger.Level.ERROR, "login of " + auth.user() + " to unit " + auth.unit() + " failed", e);
                ProtocolErrorHandler.fail(ctx.channel(), ErrorCode.INTERNAL, "login failed in the server: " + e);
                return;
            }
            StorageUnit granted = unit;
            try {
                ctx.executor().execute(() -> finish(ctx, frame.requestId(), auth, from, granted, ticket));
            } catch (RejectedExecutionException stopped) {
                ticket.release(); // The event loop is gone with the server: so is the connection.
            }
        };
        try {
            server.executor.execute(check);
        } catch (RejectedExecutionException e) {
            ticket.release();
            ProtocolErrorHandler.fail(ctx.channel(), ErrorCode.SHUTTING_DOWN, "server is stopping");
        }
    }

    /** A standby's answer: NOT_SERVED, so that a client with several store addresses tries the next (STORE_ERROR before version 7). */
    private void notServed(ChannelHandlerContext ctx, Request.Auth auth, InetAddress from, UnitNotServedException e) {
        LOG.log(System.Logger.Level.INFO, "login refused: user '" + auth.user() + "' unit '" + auth.unit() + "' from " + from.getHostAddress()
                + ": " + e.getMessage());
        Integer version = ctx.channel().attr(HandshakeHandler.VERSION).get();
        if (version != null && ErrorCode.NOT_SERVED.sinceVersion() <= version) {
            ProtocolErrorHandler.fail(ctx.channel(), ErrorCode.NOT_SERVED, e.getMessage());
            return;
        }
        // An older client takes STORE_ERROR as any failure: the line says what would have moved it on to the holder.
        ProtocolErrorHandler.fail(ctx.channel(), ErrorCode.STORE_ERROR, e.getMessage() + "; the client speaks protocol version " + version
                + ", without the answer (version " + ErrorCode.NOT_SERVED.sinceVersion()
                + ") that sends a client on to the store holding the unit: upgrade the plugin");
    }

    private void finish(ChannelHandlerContext ctx, int requestId, Request.Auth auth, InetAddress from, StorageUnit unit,
            LoginThrottle.Ticket ticket) {
        if (unit == null) {
            server.metrics.loginFailed();
            long delay = ticket.failed();
            // The unit, user and remote address may be logged; the password never is.
            LOG.log(System.Logger.Level.WARNING, "login failed: user '" + auth.user() + "' unit '" + auth.unit() + "' from " + from.getHostAddress());
            long holdBack = Math.min(delay, MAX_HOLD_BACK_NANOS);
            String message = "authentication failed: wrong storage unit, user or password";
            if (delay > holdBack) {
                long seconds = (delay + 999_999_999L) / 1_000_000_000L;
                message += "; login throttled: logins of user '" + auth.user() + "' from " + from.getHostAddress()
                        + " are refused for the next " + seconds + " s";
            }
            String reply = message;
            // The attempt stays in flight for the whole delay, even if the client hangs up meanwhile; when the reply
            // is held back that long, it is released first, so the client's next attempt is checked.
            ctx.executor().schedule(() -> {
                if (holdBack == delay) {
                    ticket.release();
                }
                ProtocolErrorHandler.fail(ctx.channel(), ErrorCode.AUTH_FAILED, reply);
            }, holdBack, TimeUnit.NANOSECONDS);
            if (holdBack < delay) {
                ctx.executor().schedule(ticket::release, delay, TimeUnit.NANOSECONDS);
            }
            return;
        }
        ticket.succeeded();
        ticket.release();
        if (!ctx.channel().isActive()) {
            return;
        }
        FrameMemory.Account memory = server.frameMemory.account(auth.unit());
        ctx.channel().attr(FrameMemory.ACCOUNT).set(memory);
        if (!ctx.pipeline().get(FrameDecoder.class).allowFramesUpTo(server.config.maxFrameBytes(), memory)) {
            // A whole frame before AUTH_OK is refused as it arrives; one still arriving is no request either.
            ProtocolErrorHandler.fail(ctx.channel(), ErrorCode.PROTOCOL_VIOLATION, "request before AUTH_OK");
            return;
        }
        Role role = server.policy(auth.unit()).roleOf(auth.user());
        LOG.log(System.Logger.Level.INFO, "login: user '" + auth.user() + "' unit '" + auth.unit() + "' from " + from.getHostAddress()
                + (role == Role.UNASSIGNED ? "" : " (" + role.word() + ")"));
        server.metrics.watchUnit(unit);
        StoreSession session = new StoreSession(unit, auth.user(), ctx.channel().attr(HandshakeHandler.VERSION).get(), server.metrics,
                server.leases);
        ctx.pipeline().addAfter(ctx.name(), "store", new StoreHandler(server, session, ctx.channel()));
        ctx.channel().writeAndFlush(Frame.of(requestId, new Reply.AuthOk()));
        ctx.pipeline().remove(this);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            ctx.close();
        } else {
            ctx.fireUserEventTriggered(evt);
        }
    }
}
