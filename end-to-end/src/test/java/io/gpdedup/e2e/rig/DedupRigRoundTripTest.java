package io.gpdedup.e2e.rig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.fixture.DedupFixture;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.PluginFixture;
import io.gpdedup.pg.PluginLogStats;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** {@link RigRoundTrip} through {@code gpbackup_dedup_plugin} and a gpdedup-store on loopback, with {@code restore_subset: "on"}. */
class DedupRigRoundTripTest extends RigRoundTrip {
    private static final Pattern PHYSICAL = Pattern.compile("physical bytes:.*?(\\d+) bytes\\)|physical bytes:\\s+(\\d+) B");

    @Override
    PluginFixture newFixture() {
        return new DedupFixture();
    }

    @Override
    Map<String, String> extraOptions() {
        return Map.of("restore_subset", "on");
    }

    @Override
    List<String> compressionFlags() {
        // The plugin compresses what the store lacks; gzip before it would hide the duplicates.
        return List.of("--no-compression");
    }

    @Override
    void afterFilteredRestore(String timestamp) throws IOException {
        long subsetCalls = pluginLogLines().filter(l -> l.contains("restore_data_subset ") && l.contains("/" + timestamp + "/") && l.contains(": wrote ")).count();
        assertTrue(subsetCalls >= 2, "filtered restores fetched only their tables (restore_data_subset on each segment), " + subsetCalls + " calls logged");
    }

    @Override
    void afterRepeatBackup(String first, String second) throws IOException {
        PluginLogStats.Totals a = PluginLogStats.forBackup(logs, first);
        PluginLogStats.Totals b = PluginLogStats.forBackup(logs, second);
        System.out.printf("dedup repeat backup: first %d bytes, %d new, %d sent; after changes %d bytes, %d new (%.1f%%), %d sent%n",
                a.logicalBytes(), a.newBytes(), a.sentBytes(), b.logicalBytes(), b.newBytes(), 100.0 * b.newBytes() / b.logicalBytes(), b.sentBytes());
        assertEquals(a.calls(), b.calls(), "the same backup_data calls: one stream per segment and the metadata files");
        // About 7% of the rows changed or were added; around each change a chunk or two is cut anew
        // (up to 256 KiB each), much of this small database. A backup without dedup stores it all.
        assertTrue(b.newBytes() < b.logicalBytes() / 4, "the repeat backup stores only what changed: " + b.newBytes() + " of " + b.logicalBytes() + " bytes");
    }

    @Override
    long spaceHeld() throws Exception {
        store("gc");
        Matcher m = PHYSICAL.matcher(store("stat"));
        assertTrue(m.find(), "gpdedup-store stat prints the physical bytes");
        return Long.parseLong(m.group(1) != null ? m.group(1) : m.group(2));
    }

    private String store(String command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(Dist.executable("gpdedup-store").toString(), command, "--port", plugin.options().get("port"))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(LIMIT.toSeconds(), TimeUnit.SECONDS), "gpdedup-store " + command + " finished");
        assertEquals(0, p.exitValue(), "gpdedup-store " + command + ": " + out);
        return out;
    }

    private Stream<String> pluginLogLines() throws IOException {
        try (Stream<Path> files = Files.list(logs)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList().stream().flatMap(f -> {
                try {
                    return Files.readAllLines(f, StandardCharsets.UTF_8).stream();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        }
    }
}
