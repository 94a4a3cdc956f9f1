package io.gpdedup.bench.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.gpdedup.bench.report.Figures;
import java.io.IOException;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.Optional;
import java.util.Set;

/**
 * What {@code gpdedup-bench calibrate --host} measured to make a profile of an admin's own store
 * (the profile's {@code measured} section): where, when, and how much, so that the model can name
 * the store it predicts and say when the measurement was too brief to trust.
 *
 * @param threadCounts how many thread counts were measured (each a write, a repeat and a read)
 * @param shortestPassSeconds the shortest of those transfers, in seconds
 */
public record Calibrated(String host, String unit, LocalDate date, int threadCounts, double shortestPassSeconds) {
    /**
     * Fewer thread counts leave the store's capacity curve (a stream's cap, the capacity and how it
     * falls with streams) fitted through too few points.
     */
    public static final int MIN_THREAD_COUNTS = 3;
    /** A shorter transfer measures connection set-up and warm-up more than the store's rate. */
    public static final double MIN_PASS_SECONDS = 2.0;

    private static final Set<String> KEYS = Set.of("host", "unit", "date", "thread-counts", "shortest-pass-seconds");

    /** The one-line warning for a calibration too brief to trust, if this is one. */
    public Optional<String> tooBrief() {
        if (threadCounts >= MIN_THREAD_COUNTS && shortestPassSeconds >= MIN_PASS_SECONDS) {
            return Optional.empty();
        }
        return Optional.of(String.format(java.util.Locale.ROOT, "warning: this calibration is too brief to trust (%d thread counts, "
                + "shortest transfer %s s; a trusted one has at least %d thread counts and every transfer at least %s s): "
                + "calibrate again with more --threads or a larger --size", threadCounts, Figures.fixed(shortestPassSeconds, 2),
                MIN_THREAD_COUNTS, Figures.fixed(MIN_PASS_SECONDS, 0)));
    }

    /** How the model names the profile: the admin's store, by host and unit. */
    public String describe() {
        return "your store, calibrated " + date + " on " + host + " (unit " + unit + ")";
    }

    /** The {@code measured} section for the profile file. */
    public String toYaml() {
        return "measured:\n"
                + "  host: \"" + host.replace("\\", "\\\\").replace("\"", "\\\"") + "\"\n"
                + "  unit: \"" + unit.replace("\\", "\\\\").replace("\"", "\\\"") + "\"\n"
                + "  date: " + date + "\n"
                + "  thread-counts: " + threadCounts + "\n"
                + "  shortest-pass-seconds: " + Figures.plain(shortestPassSeconds) + "\n";
    }

    /** The {@code measured} section of profile text, if it has one; {@code source} names it in errors. */
    static Optional<Calibrated> of(String profileText, String source) {
        JsonNode m;
        try {
            JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(profileText);
            m = root == null ? null : root.get("measured");
        } catch (IOException e) {
            // The profile itself was read already; text it took is text this takes.
            throw new IllegalArgumentException("appliance profile " + source + " cannot be read");
        }
        if (m == null || m.isNull()) {
            return Optional.empty();
        }
        String where = "appliance profile " + source + ": measured";
        if (!m.isObject()) {
            throw new IllegalArgumentException(where + " must be a mapping of keys to values");
        }
        for (Iterator<String> keys = m.fieldNames(); keys.hasNext(); ) {
            String k = keys.next();
            if (!KEYS.contains(k)) {
                throw new IllegalArgumentException(where + ": unknown key '" + k + "'");
            }
        }
        LocalDate date;
        try {
            date = LocalDate.parse(text(m, "date", where));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(where + ".date must be a date like 2026-01-31");
        }
        JsonNode counts = m.get("thread-counts");
        JsonNode seconds = m.get("shortest-pass-seconds");
        if (counts == null || !counts.isIntegralNumber() || counts.asInt() < 1) {
            throw new IllegalArgumentException(where + ".thread-counts must be a whole number of at least 1");
        }
        if (seconds == null || !seconds.isNumber() || !(seconds.asDouble() >= 0) || Double.isInfinite(seconds.asDouble())) {
            throw new IllegalArgumentException(where + ".shortest-pass-seconds must be a number of seconds >= 0");
        }
        return Optional.of(new Calibrated(text(m, "host", where), text(m, "unit", where), date, counts.asInt(), seconds.asDouble()));
    }

    private static String text(JsonNode m, String key, String where) {
        JsonNode v = m.get(key);
        if (v == null || !v.isValueNode() || v.asText().isBlank()) {
            throw new IllegalArgumentException(where + "." + key + " is missing");
        }
        return v.asText();
    }
}
