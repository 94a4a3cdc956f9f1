package io.gpdedup.bench.runner;

import io.gpdedup.tooling.TcpRelay;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * One simulated segment host of {@code isolated}, as its own process: its own loopback address
 * (a {@link TcpRelay} the host's plugin calls connect through), its own disk read limit
 * ({@link ReadCap}, shared by its files), and one real {@code gpbackup_dedup_plugin backup_data}
 * call per file ({@code --bytes} lists their sizes), all fed unique random data on stdin at once.
 * The calls go to the host's own plugin agent ({@link PluginAgent}), as on a real segment host.
 *
 * <p>Talks to the coordinator over stdin/stdout, one line each: it prints {@code READY} once every
 * plugin call is started, waits for {@code GO}, feeds, then prints one
 * {@code FILE <index> <bytes> <startMs> <endMs> <exit>} per file, {@code FEED <timeline>},
 * {@code CPU <seconds the host and its plugin calls used after GO>} and {@code DONE} (or {@code ERROR <message>}). The password comes in environment variable
 * {@value #PASSWORD_ENV}, never on the command line.
 */
public final class HostMain {
    static final String PASSWORD_ENV = "GPDEDUP_BENCH_PASSWORD";
    static final int WRITE_BYTES = 64 * 1024;
    static final int FEED_BUCKET_MS = 100;

    private HostMain() {
    }

    /** Options, as {@code --name value} pairs. */
    static Map<String, String> options(String[] args) {
        Map<String, String> o = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --name value pairs, got " + args[i]);
            }
            o.put(args[i].substring(2), args[i + 1]);
        }
        return o;
    }

    public static void main(String[] args) {
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
        try {
            run(options(args), out);
            System.exit(0);
        } catch (Exception e) {
            out.println("ERROR " + String.valueOf(e.getMessage()).replace('\n', ' '));
            System.exit(1);
        }
    }

    static void run(Map<String, String> o, PrintStream out) throws Exception {
        int index = Integer.parseInt(req(o, "index"));
        InetAddress address = InetAddress.getByName(req(o, "address"));
        int storePort = Integer.parseInt(req(o, "store-port"));
        Path plugin = Paths.get(req(o, "plugin"));
        long[] sizes = java.util.Arrays.stream(req(o, "bytes").split(",")).mapToLong(Long::parseLong).toArray();
        int files = sizes.length;
        double readCap = Double.parseDouble(req(o, "read-cap"));
        long run = Long.parseLong(req(o, "run"));
        Path work = Files.createDirectories(Paths.get(req(o, "work")));
        String timestamp = req(o, "timestamp");
        String password = System.getenv(PASSWORD_ENV);
        if (password == null) {
            throw new IllegalArgumentException("environment variable " + PASSWORD_ENV + " is not set");
        }
        try (TcpRelay relay = TcpRelay.start(address, new InetSocketAddress("127.0.0.1", storePort));
             PluginAgent agent = PluginAgent.create()) {
            Path config = PluginConfigFile.write(work.resolve("plugin.yaml"), plugin, address.getHostAddress(), relay.port(),
                    LiveStore.UNIT, LiveStore.USER, password, false);
            Path home = Files.createDirectories(work.resolve("home"));
            agent.start(plugin, home);
            List<Process> calls = new java.util.concurrent.CopyOnWriteArrayList<>();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> calls.forEach(Process::destroy), "host-calls-cleanup"));
            for (int f = 0; f < files; f++) {
                String key = work.resolve("backups").resolve(timestamp.substring(0, 8)).resolve(timestamp)
                        .resolve(fileName(index, f)).toString();
                ProcessBuilder pb = new ProcessBuilder(plugin.toString(), "backup_data", config.toString(), key);
                pb.environment().put("HOME", home.toString());
                pb.environment().putAll(agent.environment());
                pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
                pb.redirectError(work.resolve(fileName(index, f) + ".err").toFile());
                calls.add(pb.start());
            }
            out.println("READY");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line = in.readLine();
            if (!"GO".equals(line)) {
                calls.forEach(Process::destroy);
                throw new IllegalStateException("expected GO from the coordinator, got " + line);
            }
            long startMs = System.currentTimeMillis();
            double cpuAtGo = CpuMeter.processSeconds(ProcessHandle.current().pid()) + agent.cpuSeconds();
            for (Process p : calls) {
                cpuAtGo += CpuMeter.processSeconds(p.pid());
            }
            Timeline feed = new Timeline(startMs, FEED_BUCKET_MS);
            ReadCap cap = new ReadCap(readCap);
            long[] ends = new long[files];
            String[] failures = new String[files];
            CountDownLatch done = new CountDownLatch(files);
            for (int f = 0; f < files; f++) {
                int file = f;
                Thread t = new Thread(() -> {
                    Path err = work.resolve(fileName(index, file) + ".err");
                    try {
                        feed(calls.get(file), new UniqueData(UniqueData.seed(run, (long) index << 20 | file)), sizes[file], cap, feed);
                        int exit = calls.get(file).waitFor();
                        if (exit != 0) {
                            failures[file] = "exit " + exit + ": " + lastLine(err);
                        }
                    } catch (IOException e) {
                        // The call stopped reading: say why it ended, not just that the pipe broke.
                        failures[file] = e + exitOf(calls.get(file), err);
                    } catch (InterruptedException e) {
                        failures[file] = e.toString();
                    } finally {
                        ends[file] = System.currentTimeMillis();
                        done.countDown();
                    }
                }, "feed-" + f);
                t.start();
            }
            done.await();
            for (int f = 0; f < files; f++) {
                out.println("FILE " + f + " " + sizes[f] + " " + startMs + " " + ends[f] + " "
                        + (failures[f] == null ? "0" : failures[f].replace(' ', '_')));
            }
            out.println("FEED " + feed.encode());
            // The plugin calls have been reaped: their whole CPU time is in ours now.
            out.println("CPU " + (CpuMeter.processSeconds(ProcessHandle.current().pid()) + agent.cpuSeconds() - cpuAtGo));
            out.println("DONE");
        }
    }

    private static String exitOf(Process call, Path err) {
        try {
            if (call.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                return "; the call exited " + call.exitValue() + ": " + lastLine(err);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return "";
    }

    private static String lastLine(Path file) {
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            for (int i = lines.size() - 1; i >= 0; i--) {
                if (!lines.get(i).isBlank() && !lines.get(i).startsWith("SLF4J")) {
                    return lines.get(i).strip();
                }
            }
        } catch (IOException e) {
            return "(no stderr)";
        }
        return "(no stderr)";
    }

    static String fileName(int host, int file) {
        return String.format("host%d_file%02d", host, file);
    }

    private static void feed(Process call, UniqueData data, long bytes, ReadCap cap, Timeline feed) throws IOException, InterruptedException {
        byte[] buf = new byte[WRITE_BYTES];
        try (OutputStream stdin = call.getOutputStream()) {
            long left = bytes;
            while (left > 0) {
                int n = (int) Math.min(buf.length, left);
                cap.acquire(n);
                data.fill(buf, 0, n);
                stdin.write(buf, 0, n);
                feed.add(System.currentTimeMillis(), n);
                left -= n;
            }
        }
    }

    private static String req(Map<String, String> o, String name) {
        String v = o.get(name);
        if (v == null) {
            throw new IllegalArgumentException("missing --" + name);
        }
        return v;
    }
}
