package io.gpdedup.store.metrics;

import io.gpdedup.protocol.report.GcReport;
import io.gpdedup.protocol.report.UnitStats;
import io.gpdedup.protocol.wire.MessageType;
import io.gpdedup.store.BuildVersion;
import io.gpdedup.store.config.HoldLimits;
import io.gpdedup.store.engine.Recompression;
import io.gpdedup.store.engine.StorageUnit;
import io.gpdedup.store.net.FramePool;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToDoubleFunction;

/** The server's Micrometer meters, exposed in Prometheus text format (docs/store.md lists them). */
public final class StoreMetrics {
    private static final Duration[] LATENCY_BUCKETS = {
        Duration.ofNanos(250_000), Duration.ofNanos(500_000), Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5),
        Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
        Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(10),
        Duration.ofSeconds(30), Duration.ofSeconds(60)};

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger leases = new AtomicInteger();
    private final Counter lookups;
    private final Counter chunksNew;
    private final Counter chunksDuplicate;
    private final Counter chunksPut;
    private final Counter putPayloadBytes;
    private final Counter putRawBytes;
    private final Counter chunksRead;
    private final Counter readPayloadBytes;
    private final Counter receivedBytes;
    private final Counter sentBytes;
    private final Counter commits;
    private final Counter committedLogicalBytes;
    private final Counter loginFailures;
    private final Counter connectionsRefused;
    private final Counter loginTimeouts;
    private final Counter loginsThrottled;
    private final Counter gcRuns;
    private final Counter gcReclaimedBytes;
    private final Counter gcRemovedChunks;
    private final Counter recompressedContainers;
    private final Counter recompressionSavedBytes;
    private final JvmGcMetrics jvmGc = new JvmGcMetrics();
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();
    private final Map<String, CachedStats> units = new ConcurrentHashMap<>();

    public StoreMetrics() {
        Gauge.builder("gpdedup.store.connections", connections, AtomicInteger::get)
                .description("open client connections").register(registry);
        Gauge.builder("gpdedup.store.leases.active", leases, AtomicInteger::get)
                .description("backup streams (leases) open").register(registry);
        lookups = counter("gpdedup.store.lookups", "fingerprints asked about in MISSING requests");
        chunksNew = counter("gpdedup.store.chunks.new", "fingerprints MISSING answered as missing (new chunks)");
        chunksDuplicate = counter("gpdedup.store.chunks.duplicate", "fingerprints MISSING answered as present (duplicates)");
        chunksPut = counter("gpdedup.store.chunks.put", "chunks received in PUT_CHUNKS");
        putPayloadBytes = counter("gpdedup.store.put.payload.bytes", "payload bytes received in PUT_CHUNKS (as sent, compressed)");
        putRawBytes = counter("gpdedup.store.put.raw.bytes", "uncompressed bytes of the chunks received in PUT_CHUNKS");
        chunksRead = counter("gpdedup.store.chunks.read", "chunks sent in CHUNKS replies");
        readPayloadBytes = counter("gpdedup.store.read.payload.bytes", "payload bytes sent in CHUNKS replies");
        receivedBytes = counter("gpdedup.store.network.received.bytes", "bytes read from client connections, TLS records included");
        sentBytes = counter("gpdedup.store.network.sent.bytes", "bytes written to client connections, TLS records included");
        commits = counter("gpdedup.store.commits", "objects committed");
        committedLogicalBytes = counter("gpdedup.store.committed.logical.bytes", "total length of the objects committed");
        loginFailures = counter("gpdedup.store.login.failures", "failed logins");
        connectionsRefused = counter("gpdedup.store.connections.refused", "connections refused, or closed before login to make room, by the connection limits");
        loginTimeouts = counter("gpdedup.store.login.timeouts", "connections closed for not logging in within login-timeout-seconds");
        loginsThrottled = counter("gpdedup.store.logins.throttled", "logins refused by the login throttle without checking the password");
        gcRuns = counter("gpdedup.store.gc.runs", "garbage collections of a unit, by an operator or by the store itself");
        gcReclaimedBytes = counter("gpdedup.store.gc.reclaimed.bytes", "bytes garbage collections freed");
        gcRemovedChunks = counter("gpdedup.store.gc.removed.chunks", "chunks garbage collections removed");
        recompressedContainers = counter("gpdedup.store.recompression.containers", "containers replaced by a recompressed copy");
        recompressionSavedBytes = counter("gpdedup.store.recompression.saved.bytes", "bytes recompression took off the containers it rewrote");
        Gauge.builder("gpdedup.store.build.info", () -> 1).description("the build of this store, in its labels")
                .tag("version", BuildVersion.get()).tag("java", Runtime.version().toString()).register(registry);
        for (MeterBinder b : new MeterBinder[] {new JvmMemoryMetrics(), new JvmThreadMetrics(), new ClassLoaderMetrics(), jvmGc,
            new ProcessorMetrics(), new UptimeMetrics(), new FileDescriptorMetrics()}) {
            b.bindTo(registry);
        }
        Gauge.builder("process.resident.memory.bytes", StoreMetrics::residentBytes)
                .description("resident set size of the store process (VmRSS)").register(registry);
        Gauge.builder("gpdedup.store.frame.memory.bytes", FramePool::reservedBytes)
                .description("direct memory reserved for frames in flight (uploads read or waiting to be written, replies being sent), outside the heap")
                .register(registry);
    }

    /** VmRSS of /proc/self/status, NaN where there is no /proc. */
    private static double residentBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024.0;
                }
            }
        } catch (IOException | RuntimeException e) {
            // Not Linux: no figure rather than a wrong one.
        }
        return Double.NaN;
    }

    /**
     * Free space on the file system of the data directory and the bytes of the files under it,
     * read at each scrape.
     */
    public void watchDataDirectory(Path dir) {
        String path = dir.toAbsolutePath().toString();
        Gauge.builder("gpdedup.store.data.dir.free.bytes", dir, d -> d.toFile().getUsableSpace())
                .description("bytes free for the store on the data directory's file system").tag("path", path).register(registry);
        Gauge.builder("gpdedup.store.data.dir.total.bytes", dir, d -> d.toFile().getTotalSpace())
                .description("size of the data directory's file system").tag("path", path).register(registry);
        Gauge.builder("gpdedup.store.data.dir.used.bytes", dir, StoreMetrics::bytesUnder)
                .description("bytes of the files under the data directory").tag("path", path).register(registry);
    }

    private static double bytesUnder(Path dir) {
        long[] total = new long[1];
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    total[0] += attrs.size();
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) {
                    return FileVisitResult.CONTINUE; // removed by a collection meanwhile
                }
            });
        } catch (IOException e) {
            return Double.NaN;
        }
        return total[0];
    }

    public void gcRun(GcReport r) {
        gcRuns.increment();
        gcReclaimedBytes.increment(Math.max(0, r.bytesReclaimed()));
        gcRemovedChunks.increment(r.chunksRemoved());
    }

    public void recompressed(Recompression r) {
        if (r.outcome() == Recompression.Outcome.REWRITTEN) {
            recompressedContainers.increment();
            recompressionSavedBytes.increment(Math.max(0, r.bytesBefore() - r.bytesAfter()));
        }
    }

    /** What the recompression pending gauge reads. */
    public void recompressionPending(java.util.function.LongSupplier pending) {
        Gauge.builder("gpdedup.store.recompression.pending.containers", pending, p -> p.getAsLong())
                .description("containers written by backups that recompression has not settled yet")
                .strongReference(true) // the supplier is a lambda nobody else holds
                .register(registry);
    }

    /** Stops listening to the JVM's collector notifications. */
    public void close() {
        jvmGc.close();
    }

    private Counter counter(String name, String description) {
        return Counter.builder(name).description(description).register(registry);
    }

    /** Logical bytes, physical bytes and dedup ratio of a unit, read from the engine at scrape time. */
    public void watchUnit(StorageUnit unit) {
        units.computeIfAbsent(unit.name(), name -> {
            CachedStats stats = new CachedStats(unit);
            unitGauge("gpdedup.store.unit.logical.bytes", "sum of the lengths of the unit's committed objects", stats,
                    s -> s.get().logicalBytes());
            unitGauge("gpdedup.store.unit.physical.bytes", "bytes of chunk payloads the unit keeps on disk", stats,
                    s -> s.get().physicalBytes());
            unitGauge("gpdedup.store.unit.dedup.ratio", "logical bytes / physical bytes", stats, s -> {
                UnitStats u = s.get();
                return u.physicalBytes() == 0 ? Double.NaN : (double) u.logicalBytes() / u.physicalBytes();
            });
            unitGauge("gpdedup.store.unit.objects", "committed objects", stats, s -> s.get().objects());
            unitGauge("gpdedup.store.unit.chunks", "distinct chunks stored", stats, s -> s.get().chunks());
            return stats;
        });
    }

    private void unitGauge(String name, String description, CachedStats stats, ToDoubleFunction<CachedStats> f) {
        Gauge.builder(name, stats, s -> {
            try {
                return f.applyAsDouble(s);
            } catch (RuntimeException e) {
                return Double.NaN;
            }
        }).description(description).tag("unit", stats.unit.name()).register(registry);
    }

    /** A unit's stats as of the last scrape: one engine call per unit per scrape, however many gauges. */
    private static final class CachedStats {
        final StorageUnit unit;
        private volatile UnitStats last;

        CachedStats(StorageUnit unit) {
            this.unit = unit;
        }

        void refresh() {
            try {
                last = unit.stats();
            } catch (RuntimeException e) {
                last = null;
            }
        }

        UnitStats get() {
            UnitStats s = last;
            if (s == null) {
                throw new IllegalStateException("no stats");
            }
            return s;
        }
    }

    public void request(MessageType type, long nanos, boolean ok) {
        String key = type.name() + (ok ? "" : "!");
        timers.computeIfAbsent(key, k -> Timer.builder("gpdedup.store.request")
                .description("time from receiving a request to sending its final reply")
                .tag("type", type.name().toLowerCase(Locale.ROOT))
                .tag("outcome", ok ? "ok" : "error")
                .serviceLevelObjectives(LATENCY_BUCKETS)
                .register(registry)).record(nanos, TimeUnit.NANOSECONDS);
    }

    public void received(int bytes) {
        receivedBytes.increment(bytes);
    }

    public void sent(int bytes) {
        sentBytes.increment(bytes);
    }

    public void connectionOpened() {
        connections.incrementAndGet();
    }

    public void connectionClosed() {
        connections.decrementAndGet();
    }

    /** The upload frames held against max-frame-memory-bytes. */
    public void watchFrameMemory(java.util.function.LongSupplier held) {
        Gauge.builder("gpdedup.store.frame.memory.held.bytes", () -> held.getAsLong())
                .description("bytes of upload frames being received or waiting to be served, counted against max-frame-memory-bytes")
                .register(registry);
    }

    /** A request refused, or a connection failed, at one of the {@link HoldLimits}: {@code limit} names which. */
    public void limitReached(String limit) {
        Counter.builder("gpdedup.store.limit.refusals").description("requests refused and connections failed at a limit on what clients hold")
                .tag("limit", limit).register(registry).increment();
    }

    public void leaseOpened() {
        leases.incrementAndGet();
    }

    public void leaseClosed() {
        leases.decrementAndGet();
    }

    public void lookups(int asked, int missing) {
        lookups.increment(asked);
        chunksNew.increment(missing);
        chunksDuplicate.increment(asked - missing);
    }

    public void chunkPut(int rawLength, int payloadLength) {
        chunksPut.increment();
        putRawBytes.increment(rawLength);
        putPayloadBytes.increment(payloadLength);
    }

    public void chunkRead(int payloadLength) {
        chunksRead.increment();
        readPayloadBytes.increment(payloadLength);
    }

    public void committed(long logicalLength) {
        commits.increment();
        committedLogicalBytes.increment(logicalLength);
    }

    public void loginFailed() {
        loginFailures.increment();
    }

    /** Adds the meters of another part of the store (replication) to the ones exposed. */
    public void register(MeterBinder meters) {
        meters.bindTo(registry);
    }

    public void connectionRefused() {
        connectionsRefused.increment();
    }

    public void loginTimedOut() {
        loginTimeouts.increment();
    }

    public void loginThrottled() {
        loginsThrottled.increment();
    }

    /** The Prometheus text exposition of every meter. */
    public synchronized String scrape() {
        units.values().forEach(CachedStats::refresh);
        return registry.scrape();
    }

    public int activeLeases() {
        return leases.get();
    }

    public int openConnections() {
        return connections.get();
    }
}
