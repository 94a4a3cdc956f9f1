package io.gpdedup.plugin.agent;

import io.gpdedup.plugin.api.PluginConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Parsed plugin configs, reused while the file is unchanged: same path, device, inode, size, mtime
 * and ctime. gpbackup copies the config to a new {@code /tmp/<timestamp>_<name>} per backup and then
 * reads it in every call of that backup, so one parse serves thousands of calls.
 *
 * <p>A file modified within {@link #SETTLE} of being read is not cached: timestamps are coarse (a few
 * milliseconds), so an edit in the same tick with the same size would otherwise go unnoticed.
 */
final class ConfigCache implements Function<Path, PluginConfig> {
    static final Duration SETTLE = Duration.ofSeconds(2);
    private static final int MAX_ENTRIES = 256;
    private static final String STAMP_ATTRIBUTES = "unix:dev,ino,size,lastModifiedTime,ctime";

    private final Map<Path, Entry> entries = new ConcurrentHashMap<>();
    private final Function<Path, PluginConfig> loader;
    private final Supplier<Instant> clock;

    ConfigCache() {
        this(PluginConfig::load, Instant::now);
    }

    ConfigCache(Function<Path, PluginConfig> loader, Supplier<Instant> clock) {
        this.loader = loader;
        this.clock = clock;
    }

    @Override
    public PluginConfig apply(Path file) {
        Stamp before = Stamp.of(file);
        if (before == null) {
            entries.remove(file);
            return loader.apply(file); // reports the problem the way the plugin always does
        }
        Entry e = entries.get(file);
        if (e != null && e.stamp.equals(before)) {
            return e.config;
        }
        PluginConfig config = loader.apply(file);
        Stamp after = Stamp.of(file);
        boolean settled = before.mtime.toInstant().plus(SETTLE).isBefore(clock.get());
        if (before.equals(after) && settled) {
            if (entries.size() >= MAX_ENTRIES) {
                entries.clear();
            }
            entries.put(file, new Entry(before, config));
        }
        return config;
    }

    int size() {
        return entries.size();
    }

    private record Entry(Stamp stamp, PluginConfig config) {
    }

    private record Stamp(Object dev, Object ino, Object size, FileTime mtime, Object ctime) {
        /** The file's identity and version, or null when it cannot be read. */
        static Stamp of(Path file) {
            try {
                Map<String, Object> a = Files.readAttributes(file, STAMP_ATTRIBUTES);
                return new Stamp(a.get("dev"), a.get("ino"), a.get("size"), (FileTime) a.get("lastModifiedTime"),
                        Objects.requireNonNull(a.get("ctime")));
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }
    }
}
