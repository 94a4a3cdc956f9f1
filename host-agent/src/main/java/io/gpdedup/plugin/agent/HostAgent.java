package io.gpdedup.plugin.agent;

import io.gpdedup.plugin.api.PluginDefinition;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A long-running JVM that serves plugin calls for one user and one plugin installation over a Unix
 * domain socket, each call on its own thread. Started on demand by the native launcher; exits after
 * it has been idle for a while, or as soon as its socket path no longer names its socket.
 *
 * <p>Usage: {@code HostAgent <PluginDefinition class> <socket path> [--idle-timeout=DURATION]}, where
 * DURATION is a number of seconds or a number with {@code ms}, {@code s} or {@code m} (default 10m).
 */
public final class HostAgent {
    static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(10);
    /** How often the agent checks that its socket file is still its own. */
    private static final Duration SOCKET_CHECK = Duration.ofSeconds(2);

    private final AgentSocket socket;
    private final CallHandler handler;
    private final Duration idleTimeout;
    private final AgentLog log;
    private final ExecutorService calls;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Object state = new Object();
    private int active;
    private long idleSince = System.nanoTime();
    private boolean stopping;
    private String stopReason;

    private HostAgent(AgentSocket socket, CallHandler handler, Duration idleTimeout, AgentLog log) {
        this.socket = socket;
        this.handler = handler;
        this.idleTimeout = idleTimeout;
        this.log = log;
        AtomicInteger n = new AtomicInteger();
        this.calls = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(null, r, "gpdedup-call-" + n.incrementAndGet(), 512 * 1024);
            t.setDaemon(true);
            return t;
        });
    }

    public static void main(String[] args) {
        AgentLog log = new AgentLog(System.err);
        Path socketPath;
        PluginDefinition plugin;
        Duration idle = DEFAULT_IDLE_TIMEOUT;
        try {
            if (args.length < 2) {
                throw new IllegalArgumentException("usage: HostAgent <plugin definition class> <socket path> [--idle-timeout=DURATION]");
            }
            plugin = (PluginDefinition) Class.forName(args[0]).getDeclaredConstructor().newInstance();
            socketPath = Paths.get(args[1]);
            for (int i = 2; i < args.length; i++) {
                if (args[i].startsWith("--idle-timeout=")) {
                    idle = parseDuration(args[i].substring("--idle-timeout=".length()));
                } else {
                    throw new IllegalArgumentException("unknown argument '" + args[i] + "'");
                }
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            log.warn("cannot start: " + e);
            System.exit(2);
            return;
        }
        // Nothing may reach the launcher's stdout: the agent's stdout is its log.
        System.setOut(System.err);
        System.exit(run(new DispatchingHandler(plugin), socketPath, idle, log));
    }

    /** Serves until idle; the process exit status. */
    static int run(CallHandler handler, Path socketPath, Duration idle, AgentLog log) {
        Optional<HostAgent> agent;
        try {
            agent = start(handler, socketPath, idle, log);
        } catch (IOException e) {
            log.warn("cannot listen on " + socketPath + ": " + e.getMessage());
            return 1;
        }
        if (agent.isEmpty()) {
            log.info("another agent already serves " + socketPath + "; exiting");
            return 0;
        }
        HostAgent a = agent.get();
        Thread hook = new Thread(() -> a.stop("terminated by a signal"), "gpdedup-agent-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        a.awaitStop();
        a.awaitCalls();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // already shutting down
        }
        return 0;
    }

    /** Binds and starts serving; empty when a live agent already answers on {@code socketPath}. */
    static Optional<HostAgent> start(CallHandler handler, Path socketPath, Duration idle, AgentLog log) throws IOException {
        Optional<AgentSocket> bound = AgentSocket.bind(socketPath);
        if (bound.isEmpty()) {
            return Optional.empty();
        }
        HostAgent agent = new HostAgent(bound.get(), handler, idle, log);
        Thread acceptor = new Thread(agent::acceptLoop, "gpdedup-agent-accept");
        acceptor.setDaemon(true);
        acceptor.start();
        Thread watch = new Thread(agent::watchLoop, "gpdedup-agent-idle");
        watch.setDaemon(true);
        watch.start();
        log.info("serving " + bound.get().path() + " for " + bound.get().owner().getName() + ", idle timeout " + idle);
        return Optional.of(agent);
    }

    private void acceptLoop() {
        while (true) {
            SocketChannel ch;
            try {
                ch = socket.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                stop("accept failed: " + e);
                return;
            }
            synchronized (state) {
                if (stopping) {
                    // Closed before ACCEPTED: the launcher runs the call elsewhere.
                    closeQuietly(ch);
                    continue;
                }
                active++;
            }
            try {
                calls.execute(() -> serve(ch));
            } catch (RuntimeException e) {
                callEnded();
                closeQuietly(ch);
            }
        }
    }

    private void serve(SocketChannel ch) {
        try {
            new CallSession(ch, socket.owner(), handler, log).run();
        } finally {
            callEnded();
        }
    }

    private void callEnded() {
        synchronized (state) {
            active--;
            idleSince = System.nanoTime();
            state.notifyAll();
        }
    }

    private void watchLoop() {
        while (true) {
            long waitNanos;
            synchronized (state) {
                if (stopping) {
                    return;
                }
                long idleFor = System.nanoTime() - idleSince;
                if (active == 0 && idleFor >= idleTimeout.toNanos()) {
                    break;
                }
                waitNanos = active > 0 ? SOCKET_CHECK.toNanos() : Math.min(SOCKET_CHECK.toNanos(), idleTimeout.toNanos() - idleFor);
                try {
                    TimeUnit.NANOSECONDS.timedWait(state, Math.max(waitNanos, 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            if (!socket.stillOurs()) {
                stop("socket " + socket.path() + " was removed or taken over by another agent");
                return;
            }
        }
        stop("idle for " + idleTimeout);
    }

    /** Stops accepting calls; calls in progress run to their end. */
    void stop(String reason) {
        synchronized (state) {
            if (stopping) {
                return;
            }
            stopping = true;
            stopReason = reason;
            state.notifyAll();
        }
        try {
            socket.close();
        } catch (IOException e) {
            log.warn("closing " + socket.path() + ": " + e);
        }
        log.info("stopping: " + reason);
        stopped.countDown();
    }

    void awaitStop() {
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    boolean awaitStop(Duration limit) throws InterruptedException {
        return stopped.await(limit.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Waits for the calls in progress; they are real backups and restores. */
    void awaitCalls() {
        calls.shutdown();
        try {
            while (!calls.awaitTermination(1, TimeUnit.MINUTES)) {
                log.info("waiting for " + activeCalls() + " call(s) to finish");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    int activeCalls() {
        synchronized (state) {
            return active;
        }
    }

    String stopReason() {
        synchronized (state) {
            return stopReason;
        }
    }

    Path socketPath() {
        return socket.path();
    }

    static Duration parseDuration(String s) {
        String t = s.trim();
        try {
            if (t.endsWith("ms")) {
                return positive(Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2))), s);
            }
            if (t.endsWith("s")) {
                return positive(Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1))), s);
            }
            if (t.endsWith("m")) {
                return positive(Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1))), s);
            }
            return positive(Duration.ofSeconds(Long.parseLong(t)), s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid idle timeout '" + s + "': expected e.g. 600, 600s, 10m or 500ms");
        }
    }

    private static Duration positive(Duration d, String s) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("invalid idle timeout '" + s + "': must be positive");
        }
        return d;
    }

    private static void closeQuietly(SocketChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // nothing to tell the launcher that the closed connection does not already say
        }
    }
}
