package io.gpdedup.plugin.api;

import java.util.List;
import java.util.Map;

/** What a plugin executable is: its name, the options it accepts, and how to open its backend. */
public interface PluginDefinition {
    /** The executable's name, e.g. {@code gpbackup_localfs_plugin}; also the key of its secret in gpbackup's .encrypt file. */
    String name();

    default String version() {
        return BuildInfo.release();
    }

    List<OptionSpec> options();

    StorageBackend open(PluginOptions options, PluginLog log);

    /**
     * Releases what the definition keeps between calls (connections, threads) when its process
     * ends. A thread still blocked in a socket read makes the JVM's exit wait about 300 ms.
     */
    default void close() {
    }

    /** Plugin-specific commands beyond API 0.5.0 (e.g. replicate_backup), each taking CFG first. */
    default Map<String, ExtraCommand> extraCommands() {
        return Map.of();
    }
}
