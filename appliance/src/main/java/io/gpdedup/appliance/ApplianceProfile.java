package io.gpdedup.appliance;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import io.gpdedup.store.StrictYaml;
import java.nio.file.Path;
import java.time.Duration;

/**
 * What a deduplicating backup appliance and its client library cost, as a handful of mechanisms
 * rather than a table of published cells. Every rate and time here is in <em>reference units</em>
 * (the seed's appliance: MB/s with MB = 2<sup>20</sup> bytes, durations in wall time); a live run
 * multiplies rates by {@link #scale()} ({@link #liveBytesPerSecond}) and reports back with
 * {@link #referenceMBps}; a run that wants the reference's ratio of fixed costs to transfer time
 * for the same bytes also stretches durations with {@link #liveDuration}. docs/appliance.md
 * derives each value of profiles/seed003.yaml from the seed's tables.
 *
 * <p>The mechanisms, and the methods a throttle or the model calls for each:
 * <ul>
 * <li><b>Library pool</b> ({@link #streamCapMBps(int)}): the client library sizes its thread pool by
 *     the number of connections a session opens; part of the pool serves a shared control path,
 *     so a stream's wire cap is {@code cap - poolReserve / poolStreams} (one lone stream is slower
 *     than each of five). A stream's share is fixed when the pool is sized:
 *     {@link #pooledRateMBps(double, double)} gives back only {@code poolRebalance} of what
 *     finished streams free, so the total falls by more than a stream's share as files finish.</li>
 * <li><b>Appliance write capacity</b> ({@link #aggregateCapMBps(int)}): physical (post-compression)
 *     MB/s of unique data, {@code raw / (1 + perStreamOverhead * min(n, maxActiveStreams))}: a write
 *     cache split between the active streams makes each flush smaller and adds seeks per MB as
 *     streams are added; past {@code maxActiveStreams} the appliance time-shares its stream slots
 *     instead of opening more. With the pool caps this peaks between 10 and 20 streams and falls
 *     at 30 ({@link #totalWriteMBps(int)}).</li>
 * <li><b>Client processing</b> ({@link #clientCostSecondsPerMB()}): the plugin's own work per
 *     logical MB (chunk, fingerprint, compress), serial with its stream's transfer:
 *     {@link #pluginStreamCapMBps(int)}. A synthetic channel test does not pay it.</li>
 * <li><b>Host read cap</b> ({@link #hostReadCapMBps()}): what one client host's disks deliver,
 *     shared by all streams on that host.</li>
 * <li><b>Request latency</b> ({@link #requestLatency()}): the wait for one synchronous request's
 *     reply; a pipelined stream hides it except where its queue runs dry (a burst's tail).</li>
 * <li><b>Files</b> ({@link #fileOpenLatency()}, {@link #fileCloseLatency()},
 *     {@link #namespaceOpCost()}): a create and a close each wait a fixed latency and hold the
 *     appliance's namespace, which serves one operation at a time, for {@code namespaceOpCost}.
 *     This serial queue is what makes one file per table per segment slow.</li>
 * <li><b>Dedup</b> ({@link #lookupCostSecondsPerMB()}): every logical MB costs appliance index
 *     time (a shared resource of {@link #lookupCapacityMBps()}); a duplicate costs only that,
 *     no transfer and no write capacity.</li>
 * <li><b>Read</b> ({@link #streamReadCapMBps()}, {@link #aggregateReadCapMBps(int)}): restore
 *     reads, with the same per-stream overhead mechanism as writes on their own raw capacity.</li>
 * </ul>
 * Immutable; load with {@link #load(Path)} or {@link #parse(String, String)}.
 */
public record ApplianceProfile(
        String name,
        double scale,
        double streamCapMBps,
        double poolReserveMBps,
        double poolRebalance,
        double clientCostMsPerMB,
        Duration requestLatency,
        double writeRawMBps,
        double perStreamOverhead,
        int maxActiveStreams,
        double hostReadCapMBps,
        Duration fileOpenLatency,
        Duration fileCloseLatency,
        Duration namespaceOpCost,
        double lookupCapacityMBps,
        double streamReadCapMBps,
        double readRawMBps) {

    /** Bytes in the reference's MB. */
    public static final double MB = 1024.0 * 1024.0;

    public ApplianceProfile {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name is missing");
        }
        positive("scale", scale);
        positive("stream.cap-mbps", streamCapMBps);
        if (!(poolReserveMBps >= 0 && poolReserveMBps < streamCapMBps)) {
            throw new IllegalArgumentException("stream.pool-reserve-mbps must be >= 0 and below stream.cap-mbps, is " + poolReserveMBps);
        }
        if (!(poolRebalance >= 0 && poolRebalance <= 1)) {
            throw new IllegalArgumentException("stream.pool-rebalance must be between 0 and 1, is " + poolRebalance);
        }
        notNegative("stream.client-cost-ms-per-mb", clientCostMsPerMB);
        notNegative("stream.request-latency-ms", requestLatency);
        positive("write.raw-mbps", writeRawMBps);
        notNegative("write.per-stream-overhead", perStreamOverhead);
        if (maxActiveStreams < 1) {
            throw new IllegalArgumentException("write.max-active-streams must be at least 1, is " + maxActiveStreams);
        }
        positive("host.read-cap-mbps", hostReadCapMBps);
        notNegative("files.open-latency-ms", fileOpenLatency);
        notNegative("files.close-latency-ms", fileCloseLatency);
        notNegative("files.namespace-op-ms", namespaceOpCost);
        positive("dedup.lookup-capacity-mbps", lookupCapacityMBps);
        positive("read.stream-cap-mbps", streamReadCapMBps);
        positive("read.raw-mbps", readRawMBps);
    }

    // ---- library pool and streams ----

    /**
     * Wire cap of one stream (MB/s) in a library session whose pool was sized for
     * {@code poolStreams} connections: {@code cap - poolReserve / poolStreams}.
     */
    public double streamCapMBps(int poolStreams) {
        return streamCapMBps - poolReserveMBps / Math.max(1, poolStreams);
    }

    /**
     * A stream's rate now, given the share it was given when its pool was sized and the fair share
     * it could have now: it never exceeds the fair share, and gains only {@code poolRebalance} of
     * any increase.
     */
    public double pooledRateMBps(double startShareMBps, double fairShareMBps) {
        if (fairShareMBps <= startShareMBps) {
            return fairShareMBps;
        }
        return startShareMBps + poolRebalance * (fairShareMBps - startShareMBps);
    }

    /** The plugin's client-side work per logical MB, in seconds. */
    public double clientCostSecondsPerMB() {
        return clientCostMsPerMB / 1000.0;
    }

    /** One plugin stream's cap for unique data: its client work and its wire transfer in series. */
    public double pluginStreamCapMBps(int poolStreams) {
        return 1.0 / (clientCostSecondsPerMB() + 1.0 / streamCapMBps(poolStreams));
    }

    // ---- appliance ----

    /**
     * Physical MB/s of unique data the appliance writes with {@code activeStreams} streams open:
     * {@code raw / (1 + perStreamOverhead * min(n, maxActiveStreams))}.
     */
    public double aggregateCapMBps(int activeStreams) {
        return writeRawMBps / (1 + perStreamOverhead * Math.min(Math.max(0, activeStreams), maxActiveStreams));
    }

    /** Total MB/s of {@code streams} equal unique streams from one session: the channel test. */
    double totalWriteMBps(int streams) {
        if (streams <= 0) {
            return 0;
        }
        return Math.min(streams * streamCapMBps(streams), aggregateCapMBps(streams));
    }

    /** Appliance index time per logical MB looked up, in seconds. */
    double lookupCostSecondsPerMB() {
        return 1.0 / lookupCapacityMBps;
    }

    /** Restore MB/s (physical) the appliance reads with {@code activeStreams} restore streams. */
    public double aggregateReadCapMBps(int activeStreams) {
        return readRawMBps / (1 + perStreamOverhead * Math.min(Math.max(0, activeStreams), maxActiveStreams));
    }

    // ---- live scaling ----

    /** A reference rate in MB/s as the live rate in bytes per second. */
    public double liveBytesPerSecond(double referenceMBps) {
        return referenceMBps * MB * scale;
    }

    /** A measured live rate in bytes per second, back in the reference's MB/s. */
    public double referenceMBps(double liveBytesPerSecond) {
        return liveBytesPerSecond / scale / MB;
    }

    /** A reference duration as the live one: longer when the rates are slowed down. */
    Duration liveDuration(Duration reference) {
        return Duration.ofNanos(Math.round(reference.toNanos() / scale));
    }

    // ---- loading ----

    /** Thrown for a profile that cannot be used; the message names the file, key and line. */
    static final class ProfileException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        ProfileException(String message) {
            super(message);
        }
    }

    /** Reads a YAML profile strictly: every key required, unknown or repeated keys rejected. */
    public static ApplianceProfile load(Path file) {
        return parse(StrictYaml.readFile(file, "appliance profile", ProfileException::new), file.toString());
    }

    /** Parses profile text; {@code source} names it in errors. */
    public static ApplianceProfile parse(String text, String source) {
        String where = "appliance profile " + source;
        ProfileFile f = StrictYaml.read(StrictYaml.mapper().disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT), text, ProfileFile.class,
                where, ApplianceProfile::expected, ProfileException::new);
        try {
            StreamPart s = required(f.stream, "stream");
            WritePart w = required(f.write, "write");
            HostPart h = required(f.host, "host");
            FilesPart fi = required(f.files, "files");
            DedupPart d = required(f.dedup, "dedup");
            ReadPart r = required(f.read, "read");
            return new ApplianceProfile(
                    required(f.name, "name"),
                    required(f.scale, "scale"),
                    required(s.capMBps, "stream.cap-mbps"),
                    required(s.poolReserveMBps, "stream.pool-reserve-mbps"),
                    required(s.poolRebalance, "stream.pool-rebalance"),
                    required(s.clientCostMsPerMB, "stream.client-cost-ms-per-mb"),
                    millis(required(s.requestLatencyMs, "stream.request-latency-ms"), "stream.request-latency-ms"),
                    required(w.rawMBps, "write.raw-mbps"),
                    required(w.perStreamOverhead, "write.per-stream-overhead"),
                    required(w.maxActiveStreams, "write.max-active-streams"),
                    required(h.readCapMBps, "host.read-cap-mbps"),
                    millis(required(fi.openLatencyMs, "files.open-latency-ms"), "files.open-latency-ms"),
                    millis(required(fi.closeLatencyMs, "files.close-latency-ms"), "files.close-latency-ms"),
                    millis(required(fi.namespaceOpMs, "files.namespace-op-ms"), "files.namespace-op-ms"),
                    required(d.lookupCapacityMBps, "dedup.lookup-capacity-mbps"),
                    required(r.streamCapMBps, "read.stream-cap-mbps"),
                    required(r.rawMBps, "read.raw-mbps"));
        } catch (IllegalArgumentException e) {
            throw new ProfileException(where + ": " + e.getMessage());
        }
    }

    /** This profile as YAML that {@link #parse} reads back to an equal profile. */
    public String toYaml() {
        return "name: " + name + "\n"
                + "scale: " + scale + "\n"
                + "stream:\n"
                + "  cap-mbps: " + streamCapMBps + "\n"
                + "  pool-reserve-mbps: " + poolReserveMBps + "\n"
                + "  pool-rebalance: " + poolRebalance + "\n"
                + "  client-cost-ms-per-mb: " + clientCostMsPerMB + "\n"
                + "  request-latency-ms: " + ms(requestLatency) + "\n"
                + "write:\n"
                + "  raw-mbps: " + writeRawMBps + "\n"
                + "  per-stream-overhead: " + perStreamOverhead + "\n"
                + "  max-active-streams: " + maxActiveStreams + "\n"
                + "host:\n"
                + "  read-cap-mbps: " + hostReadCapMBps + "\n"
                + "files:\n"
                + "  open-latency-ms: " + ms(fileOpenLatency) + "\n"
                + "  close-latency-ms: " + ms(fileCloseLatency) + "\n"
                + "  namespace-op-ms: " + ms(namespaceOpCost) + "\n"
                + "dedup:\n"
                + "  lookup-capacity-mbps: " + lookupCapacityMBps + "\n"
                + "read:\n"
                + "  stream-cap-mbps: " + streamReadCapMBps + "\n"
                + "  raw-mbps: " + readRawMBps + "\n";
    }

    /** A copy with another scale: the same appliance run faster or slower. */
    public ApplianceProfile withScale(double newScale) {
        return new ApplianceProfile(name, newScale, streamCapMBps, poolReserveMBps, poolRebalance, clientCostMsPerMB,
                requestLatency, writeRawMBps, perStreamOverhead, maxActiveStreams, hostReadCapMBps, fileOpenLatency,
                fileCloseLatency, namespaceOpCost, lookupCapacityMBps, streamReadCapMBps, readRawMBps);
    }

    // The file's form: classes with fields, so Jackson meets keys one by one and reports an
    // unknown one at its own line (a record would be built only after all keys were read).
    static final class ProfileFile {
        @JsonProperty("name") String name;
        @JsonProperty("scale") Double scale;
        @JsonProperty("stream") StreamPart stream;
        @JsonProperty("write") WritePart write;
        @JsonProperty("host") HostPart host;
        @JsonProperty("files") FilesPart files;
        @JsonProperty("dedup") DedupPart dedup;
        @JsonProperty("read") ReadPart read;
        // What `gpdedup-bench calibrate --host` measured to make the profile (host, date, how long):
        // the benchmark kit reads it to name and judge the profile; no part of the appliance.
        @JsonProperty("measured") JsonNode measured;
    }

    static final class StreamPart {
        @JsonProperty("cap-mbps") Double capMBps;
        @JsonProperty("pool-reserve-mbps") Double poolReserveMBps;
        @JsonProperty("pool-rebalance") Double poolRebalance;
        @JsonProperty("client-cost-ms-per-mb") Double clientCostMsPerMB;
        @JsonProperty("request-latency-ms") Double requestLatencyMs;
    }

    static final class WritePart {
        @JsonProperty("raw-mbps") Double rawMBps;
        @JsonProperty("per-stream-overhead") Double perStreamOverhead;
        @JsonProperty("max-active-streams") Integer maxActiveStreams;
    }

    static final class HostPart {
        @JsonProperty("read-cap-mbps") Double readCapMBps;
    }

    static final class FilesPart {
        @JsonProperty("open-latency-ms") Double openLatencyMs;
        @JsonProperty("close-latency-ms") Double closeLatencyMs;
        @JsonProperty("namespace-op-ms") Double namespaceOpMs;
    }

    static final class DedupPart {
        @JsonProperty("lookup-capacity-mbps") Double lookupCapacityMBps;
    }

    static final class ReadPart {
        @JsonProperty("stream-cap-mbps") Double streamCapMBps;
        @JsonProperty("raw-mbps") Double rawMBps;
    }

    /** What a value of one of the file's own classes should be, for the message of a wrong one; null for other types. */
    private static String expected(Class<?> type) {
        return type.getEnclosingClass() == ApplianceProfile.class ? "a mapping of keys to values" : null;
    }

    private static <T> T required(T value, String key) {
        if (value == null) {
            throw new IllegalArgumentException("key '" + key + "' is missing");
        }
        return value;
    }

    private static Duration millis(double ms, String key) {
        if (!(ms >= 0) || Double.isInfinite(ms)) {
            throw new IllegalArgumentException(key + " must be >= 0, is " + ms);
        }
        return Duration.ofNanos(Math.round(ms * 1e6));
    }

    private static String ms(Duration d) {
        return Double.toString(d.toNanos() / 1e6);
    }

    private static void positive(String key, double v) {
        if (!(v > 0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException(key + " must be > 0, is " + v);
        }
    }

    private static void notNegative(String key, double v) {
        if (!(v >= 0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException(key + " must be >= 0, is " + v);
        }
    }

    private static void notNegative(String key, Duration d) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException(key + " must be >= 0, is " + d);
        }
    }
}
