package io.gpdedup.plugin.localfs;

import io.gpdedup.plugin.api.OptionSpec;
import io.gpdedup.plugin.api.PluginDefinition;
import io.gpdedup.plugin.api.PluginLog;
import io.gpdedup.plugin.api.PluginOptions;
import io.gpdedup.plugin.api.PluginProcess;
import io.gpdedup.plugin.api.StorageBackend;
import java.nio.file.Paths;
import java.util.List;

/** The definition and {@code main} of {@code gpbackup_localfs_plugin}. */
public final class LocalfsPlugin implements PluginDefinition {
    public static final String NAME = "gpbackup_localfs_plugin";
    static final String DIRECTORY = "directory";

    public static void main(String[] args) {
        PluginProcess.main(new LocalfsPlugin(), args);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<OptionSpec> options() {
        return List.of(OptionSpec.required(DIRECTORY, OptionSpec.Type.ABSOLUTE_PATH, "absolute directory that holds the backups"));
    }

    @Override
    public StorageBackend open(PluginOptions options, PluginLog log) {
        return new DirectoryBackend(Paths.get(options.require(DIRECTORY)));
    }
}
