package io.gpdedup.e2e.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.layout.Timestamps;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * gpbackup run without --no-compression hands the plugin gzip or zstd streams, named with the
 * codec's suffix: {@code dist/bin/gpbackup_dedup_plugin} stores them byte for byte, and its log
 * says once per such call to use --no-compression; an uncompressed stream gets no such line.
 */
@Timeout(120)
class CompressedInputWarningTest {
    @TempDir
    Path dir;

    @Test
    void aCompressedStreamIsStoredAndWarnedAboutOnce() throws Exception {
        try (StoreAndPlugin host = StoreAndPlugin.start(dir, "", "require")) {
            String cfg = host.config("plugin", host.storePort(), "");
            Timestamps timestamps = new Timestamps();
            String plain = host.key(0, timestamps.next(), 16384);
            host.plugin().run(new SeededBytes(1, 10_000), "backup_data", cfg, plain).assertSucceeded();
            assertEquals(List.of(), host.pluginLogLines("--no-compression"));

            String gz = host.key(0, timestamps.next(), 16385) + ".gz";
            String zst = host.key(0, timestamps.next(), 16386) + ".zst";
            for (String key : List.of(gz, zst)) {
                host.plugin().run(new SeededBytes(2, 10_000), "backup_data", cfg, key).assertSucceeded();
                assertArrayEquals(SeededBytes.array(2, 10_000), host.plugin().run("restore_data", cfg, key).assertSucceeded().stdout());
            }
            List<String> warnings = host.pluginLogLines("--no-compression");
            assertEquals(2, warnings.size(), String.join("\n", warnings));
            assertTrue(warnings.get(0).contains("WARN") && warnings.get(0).contains(".gz") && warnings.get(1).contains(".zst"),
                    String.join("\n", warnings));
        }
    }
}
