package io.gpdedup.bench.runner;

import io.gpdedup.tooling.TcpRelay;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A simulated segment host for {@code gpbackup-sim}: its own loopback address (a relay to the
 * store), its own plugin agent, its plugin config, and a way to run the real plugin there with
 * stdin and stdout as gpbackup's helper or COPY would connect them.
 */
final class SimHost implements AutoCloseable {
    /** Writes a call's stdin. */
    interface Feed {
        void write(OutputStream stdin) throws IOException, InterruptedException;
    }

    /** Reads a call's stdout. */
    interface Drain {
        void read(InputStream stdout) throws IOException, InterruptedException;
    }

    private final int index;
    private final Path plugin;
    private final Path config;
    private final Path home;
    private final TcpRelay relay;
    private final PluginAgent agent;

    private SimHost(int index, Path plugin, Path config, Path home, TcpRelay relay, PluginAgent agent) {
        this.index = index;
        this.plugin = plugin;
        this.config = config;
        this.home = home;
        this.relay = relay;
        this.agent = agent;
    }

    static SimHost open(int index, LiveStore store, Installation dist, Path dir) throws IOException {
        Files.createDirectories(dir);
        InetAddress address = InetAddress.getByName(Isolated.address(index));
        TcpRelay relay = TcpRelay.start(address, new InetSocketAddress(store.host(), store.port()));
        try {
            PluginAgent agent = PluginAgent.create();
            Path plugin = dist.executable(Installation.DEDUP_PLUGIN);
            Path config = PluginConfigFile.write(dir.resolve("plugin.yaml"), plugin, address.getHostAddress(), relay.port(),
                    LiveStore.UNIT, LiveStore.USER, store.password(), true);
            Path home = Files.createDirectories(dir.resolve("home"));
            agent.start(plugin, home);
            return new SimHost(index, plugin, config, home, relay, agent);
        } catch (InterruptedException e) {
            relay.close();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting host " + index + "'s plugin agent", e);
        } catch (IOException | RuntimeException e) {
            relay.close();
            throw e;
        }
    }

    int index() {
        return index;
    }

    Path config() {
        return config;
    }

    double agentCpuSeconds() {
        return agent.cpuSeconds();
    }

    /**
     * Runs {@code gpbackup_dedup_plugin <command> <config> <args...>} on this host, feeding and
     * draining it at once, and fails with its stderr when it exits non-zero.
     */
    void call(String command, List<String> args, Feed feed, Drain drain, Path stderr) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(plugin.toString(), command, config.toString()));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("HOME", home.toString());
        pb.environment().putAll(agent.environment());
        pb.redirectError(stderr.toFile());
        if (feed == null) {
            pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        }
        if (drain == null) {
            pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        }
        Process p = pb.start();
        CompletableFuture<Void> out = drain == null ? CompletableFuture.completedFuture(null) : CompletableFuture.runAsync(() -> {
            try (InputStream in = p.getInputStream()) {
                drain.read(in);
                in.transferTo(OutputStream.nullOutputStream());
            } catch (IOException | InterruptedException e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        }, runnable -> new Thread(runnable, "drain").start());
        IOException feedFailure = null;
        if (feed != null) {
            try (OutputStream in = p.getOutputStream()) {
                feed.write(in);
            } catch (IOException e) {
                feedFailure = e;
            }
        }
        int exit = p.waitFor();
        try {
            out.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (exit == 0) {
                throw new IOException(command + " output: " + e.getCause().getMessage(), e.getCause());
            }
        }
        if (exit != 0) {
            String err = Files.exists(stderr) ? Files.readString(stderr).strip() : "";
            throw new IOException(command + " " + String.join(" ", args) + " on host " + index + " exited " + exit + ": " + err);
        }
        if (feedFailure != null) {
            throw feedFailure;
        }
    }

    @Override
    public void close() throws IOException {
        try {
            relay.close();
        } finally {
            agent.close();
        }
    }
}
