package io.gpdedup.plugin.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.plugin.api.PluginConfig;
import io.gpdedup.plugin.api.PluginException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigCacheTest {
    @TempDir
    Path dir;
    private Path file;
    private final AtomicInteger loads = new AtomicInteger();
    private Instant now = Instant.parse("2026-11-23T12:00:00Z");
    private ConfigCache cache;

    @BeforeEach
    void setUp() throws IOException {
        file = dir.resolve("cfg.yaml");
        write("executablepath: /bin/a\n", "2026-11-23T11:00:00Z");
        cache = new ConfigCache(p -> {
            loads.incrementAndGet();
            return PluginConfig.load(p);
        }, () -> now);
    }

    private void write(String text, String mtime) throws IOException {
        Files.writeString(file, text);
        Files.setLastModifiedTime(file, FileTime.from(Instant.parse(mtime)));
    }

    @Test
    void parsesAnUnchangedFileOnce() {
        PluginConfig first = cache.apply(file);
        assertSame(first, cache.apply(file));
        assertSame(first, cache.apply(file));
        assertEquals(1, loads.get());
    }

    @Test
    void rereadsAChangedFile() throws IOException {
        assertEquals("/bin/a", cache.apply(file).executablePath());
        write("executablepath: /bin/bb\n", "2026-11-23T11:00:00Z"); // same mtime, other size
        assertEquals("/bin/bb", cache.apply(file).executablePath());
        write("executablepath: /bin/cc\n", "2026-11-23T11:30:00Z"); // same size, other mtime
        assertEquals("/bin/cc", cache.apply(file).executablePath());
        assertEquals(3, loads.get());
    }

    @Test
    void doesNotCacheAFileModifiedMomentsAgo() throws IOException {
        write("executablepath: /bin/a\n", "2026-11-23T11:59:59.500Z");
        cache.apply(file);
        cache.apply(file);
        assertEquals(2, loads.get(), "a file younger than the settle time was cached");
        assertEquals(0, cache.size());
        now = now.plus(ConfigCache.SETTLE);
        cache.apply(file);
        cache.apply(file);
        assertEquals(3, loads.get());
    }

    @Test
    void reportsAMissingOrBrokenFileEveryTime() throws IOException {
        Path missing = dir.resolve("missing.yaml");
        PluginException e = assertThrows(PluginException.class, () -> cache.apply(missing));
        assertTrue(e.getMessage().contains(missing + " does not exist"), e.getMessage());
        write("options: [\n", "2026-11-23T11:00:00Z");
        assertThrows(PluginException.class, () -> cache.apply(file));
        assertThrows(PluginException.class, () -> cache.apply(file));
        assertEquals(0, cache.size());
    }
}
