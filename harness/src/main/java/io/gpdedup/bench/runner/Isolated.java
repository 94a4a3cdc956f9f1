package io.gpdedup.bench.runner;

import io.gpdedup.protocol.naming.BackupTimestamp;
import io.gpdedup.protocol.naming.RemoteName;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The isolated plugin test: H simulated hosts ({@link HostMain} processes, host h on 127.0.0.(h+2)),
 * each running N real {@code gpbackup_dedup_plugin backup_data} calls in parallel on unique random
 * data read under the host's read cap. Every call is started and has its backup stream open at the
 * store before the feed begins; a file is done when its plugin call has exited (its commit durable).
 */
public final class Isolated {
    private static final Pattern HOST_FILE = Pattern.compile("host(\\d+)_file(\\d+)$");

    private Isolated() {
    }

    /**
     * @param run distinguishes this run's data and object names from every other run's in the store
     * @param hostReadCap bytes per second one host can read (0: unlimited)
     */
    /**
     * @param firstByteMs per host, when the store's throttle let its first bytes through (wall clock ms)
     * @param machineCpu busy share of the machine's CPUs while data flowed
     * @param ourCpu share of the machine's CPUs the store, the hosts and their plugin calls used meanwhile
     */
    public record Result(StreamRun run, Timeline[] storeByHost, Timeline[] feedByHost, long[] firstByteMs, double machineCpu,
            double ourCpu) {
        /**
         * Bytes per second of host {@code h} as the appliance saw them: from its first byte at the
         * store to the end of its last plugin call. This leaves out the time a plugin call spends
         * filling its first batch before it sends anything (4 MiB, which at a live scale of 0.02
         * stands for 200 MiB of the reference), an artifact of the scale, not of the appliance.
         */
        public double storeBytesPerSecond(int h) {
            long bytes = 0;
            long end = firstByteMs[h];
            for (StreamRun.Stream s : run.streams()) {
                if (s.group() == h) {
                    bytes += s.bytes();
                    end = Math.max(end, s.endMs());
                }
            }
            return bytes / (Math.max(1, end - firstByteMs[h]) / 1000.0);
        }

        /** All hosts' bytes from the first byte at the store to the end of the last call. */
        public double storeBytesPerSecond() {
            long first = java.util.Arrays.stream(firstByteMs).min().orElse(run.startMs());
            return run.bytes() / (Math.max(1, run.endMs() - first) / 1000.0);
        }
    }

    /**
     * @param fileBytes the live size of each file a host backs up (every host the same)
     */
    public static Result run(LiveStore store, Installation dist, Path work, int hosts, long[] fileBytes, double hostReadCap,
            long run, LongConsumer progress) throws IOException, InterruptedException {
        int files = fileBytes.length;
        String timestamp = timestamp(run);
        Path runDir = Files.createDirectories(work.resolve("isolated-" + run));
        List<Process> procs = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<BlockingQueue<String>> lines = new ArrayList<>();
        // Should this JVM be stopped mid-run, the hosts go too (each then removes its plugin agent).
        Thread onExit = new Thread(() -> procs.forEach(Process::destroy), "isolated-hosts-cleanup");
        Runtime.getRuntime().addShutdownHook(onExit);
        try {
            for (int h = 0; h < hosts; h++) {
                procs.add(startHost(store, dist, runDir.resolve("host" + h), h, fileBytes, hostReadCap, run, timestamp));
                lines.add(lines(procs.get(h), "host-" + h));
            }
            for (int h = 0; h < hosts; h++) {
                expect(lines.get(h), h, "READY", Duration.ofSeconds(120));
            }
            if (!store.awaitLeases(hosts * files, Duration.ofSeconds(180))) {
                throw new IOException("the store did not see " + hosts * files + " backup streams open within 3 minutes; see "
                        + runDir + "/host*/*.err");
            }
            double before = store.metric("gpdedup_store_put_raw_bytes_total");
            CpuMeter cpu = CpuMeter.start(store.pid());
            long start = System.currentTimeMillis();
            for (Process p : procs) {
                OutputStream o = p.getOutputStream();
                o.write("GO\n".getBytes(StandardCharsets.US_ASCII));
                o.flush();
            }
            List<StreamRun.Stream> streams = new ArrayList<>();
            Timeline[] feeds = new Timeline[hosts];
            double hostCpu = 0;
            double reported = 0;
            for (int h = 0; h < hosts; h++) {
                while (true) {
                    String line = lines.get(h).poll(200, TimeUnit.MILLISECONDS);
                    double now = store.metric("gpdedup_store_put_raw_bytes_total") - before;
                    if (now > reported) {
                        progress.accept((long) (now - reported));
                        reported = now;
                    }
                    if (line == null) {
                        if (!procs.get(h).isAlive() && lines.get(h).isEmpty()) {
                            throw new IOException("host " + h + " exited without a result; see " + runDir.resolve("host" + h));
                        }
                        continue;
                    }
                    if (line.startsWith("FILE ")) {
                        String[] p = line.split(" ");
                        String failure = p[5].equals("0") ? null : p[5];
                        streams.add(new StreamRun.Stream(HostMain.fileName(h, Integer.parseInt(p[1])), h,
                                failure == null ? Long.parseLong(p[2]) : 0, Long.parseLong(p[4]), failure));
                    } else if (line.startsWith("FEED ")) {
                        feeds[h] = Timeline.decode(line.substring(5));
                    } else if (line.startsWith("CPU ")) {
                        hostCpu += Double.parseDouble(line.substring(4));
                    } else if (line.startsWith("ERROR ")) {
                        throw new IOException("host " + h + ": " + line.substring(6));
                    } else if (line.equals("DONE")) {
                        break;
                    }
                }
            }
            double machineCpu = cpu.machineBusy();
            double ourCpu = cpu.ourBusy(hostCpu);
            StreamRun result = new StreamRun(hosts + " hosts x " + files + " files", start, streams);
            List<StoreTrace.Row> rows = StoreTrace.read(store.traceFile());
            String prefix = PluginConfigFile.DIRECTORY + "/" + RemoteName.backupPrefix(BackupTimestamp.parse(timestamp)) + "/";
            Timeline[] byHost = StoreTrace.timelines(rows, r -> r.label().startsWith(prefix), Isolated::hostOf, hosts, start, 100);
            long[] first = new long[hosts];
            java.util.Arrays.fill(first, Long.MAX_VALUE);
            for (StoreTrace.Row r : rows) {
                Integer h = r.label().startsWith(prefix) ? hostOf(r) : null;
                if (h != null && h < hosts) {
                    first[h] = Math.min(first[h], Math.max(start, r.startMs()));
                }
            }
            for (int h = 0; h < hosts; h++) {
                if (first[h] == Long.MAX_VALUE) {
                    first[h] = start;
                }
            }
            return new Result(result, byHost, feeds, first, machineCpu, ourCpu);
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(onExit);
            } catch (IllegalStateException e) {
                // Shutting down: the hook destroys the hosts.
            }
            for (Process p : procs) {
                if (p.isAlive()) {
                    p.destroy();
                    if (!p.waitFor(10, TimeUnit.SECONDS)) {
                        p.destroyForcibly();
                    }
                }
            }
        }
    }

    static Integer hostOf(StoreTrace.Row r) {
        Matcher m = HOST_FILE.matcher(r.label());
        return m.find() ? Integer.valueOf(m.group(1)) : null;
    }

    /** A valid gpbackup timestamp per run, so each run's objects have their own names. */
    static String timestamp(long run) {
        long s = run % 86_400;
        return String.format("20250101%02d%02d%02d", s / 3600, s / 60 % 60, s % 60);
    }

    /** Host h's own loopback address: 127.0.0.2, 127.0.0.3, ... (127.0.0.1 is the store's). */
    static String address(int host) {
        return "127.0.0." + (host + 2);
    }

    private static Process startHost(LiveStore store, Installation dist, Path dir, int h, long[] bytes, double cap, long run,
            String timestamp) throws IOException {
        Files.createDirectories(dir);
        List<String> cmd = new ArrayList<>(Jvm.command("-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        cmd.add(HostMain.class.getName());
        cmd.addAll(List.of("--index", String.valueOf(h), "--address", address(h), "--store-port", String.valueOf(store.port()),
                "--plugin", dist.executable(Installation.DEDUP_PLUGIN).toString(),
                "--bytes", java.util.Arrays.stream(bytes).mapToObj(String::valueOf).collect(java.util.stream.Collectors.joining(",")), "--read-cap", String.valueOf(cap), "--run", String.valueOf(run),
                "--work", dir.toString(), "--timestamp", timestamp));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put(HostMain.PASSWORD_ENV, store.password());
        pb.redirectError(dir.resolve("host.err").toFile());
        return pb.start();
    }

    private static BlockingQueue<String> lines(Process p, String name) {
        BlockingQueue<String> q = new LinkedBlockingQueue<>();
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    q.add(line);
                }
            } catch (IOException e) {
                q.add("ERROR " + e.getMessage());
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return q;
    }

    private static void expect(BlockingQueue<String> q, int host, String what, Duration timeout) throws IOException, InterruptedException {
        String line = q.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (line == null) {
            throw new IOException("host " + host + " did not say " + what + " within " + timeout.toSeconds() + " s");
        }
        if (!line.equals(what)) {
            throw new IOException("host " + host + ": " + line);
        }
    }
}
