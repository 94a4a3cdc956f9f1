package io.gpdedup.store.net;

import io.gpdedup.store.auth.AuthHandler;
import io.gpdedup.store.auth.Authenticator;
import io.gpdedup.store.auth.LoginThrottle;
import io.gpdedup.store.config.ConnectionLimits;
import io.gpdedup.store.config.HoldLimits;
import io.gpdedup.store.config.StoreConfig;
import io.gpdedup.store.engine.StoreEngine;
import io.gpdedup.store.engine.UnitNotServedException;
import io.gpdedup.store.jobs.AutoCollector;
import io.gpdedup.store.jobs.IdleRecompressor;
import io.gpdedup.store.log.RefusalLog;
import io.gpdedup.store.metrics.StoreMetrics;
import io.gpdedup.store.replication.ReplicationQueue;
import io.gpdedup.store.tls.ServerTls;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The Netty server in front of a {@link StoreEngine}: native epoll when the platform has it, NIO
 * otherwise. Each connection is first admitted by the {@link ConnectionLimiter} (which may close
 * it at once, or close older ones still waiting to log in), and gets the pipeline idle timer,
 * frame decoder, message decoder and encoder, handshake, auth and (once authenticated) store
 * handler, and the protocol error handler.
 * Does not own the engine: whoever opened it closes it after {@link #stop}.
 */
final class StoreServer {
    private static final System.Logger LOG = System.getLogger(StoreServer.class.getName());

    private final ServerContext context;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final Channel serverChannel;
    private final boolean epoll;
    private final Object stopLock = new Object();
    private boolean stopped;

    private StoreServer(ServerContext context, EventLoopGroup boss, EventLoopGroup workers, Channel serverChannel, boolean epoll) {
        this.context = context;
        this.boss = boss;
        this.workers = workers;
        this.serverChannel = serverChannel;
        this.epoll = epoll;
    }

    /**
     * Binds {@code config.listenAddress():config.port()} (port 0: any free port) and starts serving;
     * REPLICATE requests go to {@code replication}.
     */
    public static StoreServer start(StoreEngine engine, StoreConfig config, StoreMetrics metrics, ReplicationQueue replication)
            throws IOException {
        ServerTls tls = config.tls() == null ? null : ServerTls.load(config.tls());
        boolean epoll = Epoll.isAvailable();
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        Class<? extends ServerChannel> channelType = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("store-accept"), io);
        EventLoopGroup workers = new MultiThreadIoEventLoopGroup(Math.min(4, Runtime.getRuntime().availableProcessors()),
                new DefaultThreadFactory("store-io"), io);
        ExecutorService executor = new ThreadPoolExecutor(config.engineThreads(), config.engineThreads(), 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(), new DefaultThreadFactory("store-engine", true));
        ChannelGroup channels = new DefaultChannelGroup("store-connections", GlobalEventExecutor.INSTANCE);
        Authenticator authenticator = new Authenticator(config.units());
        RefusalLog refusals = new RefusalLog(boss);
        ConnectionLimits limits = config.connectionLimits();
        ConnectionLimiter limiter = ConnectionLimiter.forProcess(limits, refusals, metrics);
        AutoCollector collector = new AutoCollector(engine, config.gc(), metrics);
        IdleRecompressor recompressor = new IdleRecompressor(engine, config.recompress(), metrics);
        ServerContext context = new ServerContext(engine, config, metrics, executor, authenticator,
                LoginThrottle.standard(limits.maxPendingLogins()), refusals, channels,
                replication, collector, recompressor);
        HoldLimits holds = limits.holds();
        LOG.log(System.Logger.Level.INFO, "holding limits: leases " + holds.maxLeasesPerConnection() + " per connection, "
                + holds.maxLeasesPerUnit() + " per unit, " + holds.maxLeases() + " in all; frame memory " + context.frameMemory.cap()
                + " bytes, " + context.frameMemory.unitShare() + " per unit; " + holds.maxQueuedRequests() + " queued requests per connection");
        WireBytes wireBytes = new WireBytes(metrics);
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(boss, workers)
                .channel(channelType)
                .option(ChannelOption.SO_BACKLOG, 256)
                // A store restarted after a crash takes its port back although the old connections linger in TIME_WAIT.
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .handler(new Admissions(limiter))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        channels.add(ch);
                        metrics.connectionOpened();
                        ch.closeFuture().addListener(f -> metrics.connectionClosed());
                        ChannelPipeline p = ch.pipeline();
                        p.addLast("wire-bytes", wireBytes);
                        p.addLast("idle", new IdleStateHandler(0, 0, config.idleTimeout().toMillis(), TimeUnit.MILLISECONDS));
                        if (tls != null) {
                            p.addLast("tls-gate", tls.gate());
                        }
                        p.addLast("frames", new FrameDecoder());
                        p.addLast("encoder", new MessageEncoder());
                        p.addLast("messages", new MessageDecoder());
                        p.addLast("handshake", new HandshakeHandler(config.maxFrameBytes(), config.maxBatch()));
                        ConnectionLimiter.Admission admission = ch.attr(Admissions.ADMISSION).get();
                        p.addLast("auth", new AuthHandler(context, admission));
                        p.addLast("errors", new ProtocolErrorHandler());
                        limiter.closeUnlessLoginStartsWithin(admission, limits.loginTimeout());
                    }
                });
        ChannelFuture bound = bootstrap.bind(new InetSocketAddress(config.listenAddress(), config.port())).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            shutdown(boss, workers, executor);
            recompressor.close();
            collector.close();
            throw new IOException("cannot listen on " + config.listenAddress() + ":" + config.port() + ": " + bound.cause().getMessage(), bound.cause());
        }
        return new StoreServer(context, boss, workers, bound.channel(), epoll);
    }

    /**
     * On the listening socket, before the acceptor hands a connection to an event loop: asks the
     * limiter, and closes a refused socket at once, so a flood never holds descriptors in queues.
     */
    private static final class Admissions extends ChannelInboundHandlerAdapter {
        static final AttributeKey<ConnectionLimiter.Admission> ADMISSION = AttributeKey.valueOf("gpdedup.admission");
        private final ConnectionLimiter limiter;

        Admissions(ConnectionLimiter limiter) {
            this.limiter = limiter;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            Channel child = (Channel) msg;
            ConnectionLimiter.Admission admission = limiter.admit(child, ((InetSocketAddress) child.remoteAddress()).getAddress());
            if (admission == null) {
                child.unsafe().closeForcibly();
                return;
            }
            child.attr(ADMISSION).set(admission);
            child.closeFuture().addListener(f -> limiter.closed(admission));
            ctx.fireChannelRead(child);
        }

        @Override
        public boolean isSharable() {
            return true;
        }
    }

    /**
     * Takes the users of {@code units} for the logins that follow, opening any unit that is new;
     * connections already logged in keep their session.
     */
    void replaceUsers(StoreConfig config) {
        for (String unit : config.units().keySet()) {
            try {
                context.metrics.watchUnit(context.engine.unit(unit));
            } catch (UnitNotServedException standby) {
                // Another store holds it: its users are taken all the same, for when this standby takes it over.
            }
        }
        context.replacePolicies(config);
        context.authenticator.replace(config.units());
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    boolean usesEpoll() {
        return epoll;
    }

    /**
     * Stops: no new connections, no new requests (they get SHUTTING_DOWN), waits up to the
     * configured grace for the requests already accepted (commits included) to finish, then closes
     * every connection (aborting their leases) and waits for the aborts, and for a garbage
     * collection in progress (none waiting starts). Idempotent.
     *
     * @return whether every accepted request finished within the grace period
     */
    public boolean stop() {
        synchronized (stopLock) {
            if (stopped) {
                return true;
            }
            stopped = true;
            boolean drained = false;
            try {
                serverChannel.close().syncUninterruptibly();
                drained = context.gate.closeAndAwait(context.config.shutdownGrace().toNanos());
                if (!drained) {
                    LOG.log(System.Logger.Level.WARNING, context.gate.inFlight() + " requests still running after "
                            + context.config.shutdownGrace() + "; closing their connections");
                }
                context.channels.close().awaitUninterruptibly();
                context.refusals.flush();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                shutdown(boss, workers, context.executor);
                context.recompressor.close();
                context.collector.close();
            }
            return drained;
        }
    }

    private static void shutdown(EventLoopGroup boss, EventLoopGroup workers, ExecutorService executor) {
        boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
        // After the event loops: their last act on closing connections was to queue lease aborts here.
        executor.shutdown();
        try {
            if (!executor.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.log(System.Logger.Level.WARNING, "engine executor still busy after 30 s; stopping anyway");
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            executor.shutdownNow();
        }
    }
}
