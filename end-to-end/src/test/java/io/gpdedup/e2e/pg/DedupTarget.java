package io.gpdedup.e2e.pg;

import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.e2e.layout.ConfigFile;
import io.gpdedup.pg.PluginRunner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** A fresh gpdedup-store process and a gpbackup_dedup_plugin config pointing at it, logging where the tests can read the plugin's counts. */
final class DedupTarget implements AutoCloseable {
    private final StoreProcess store;
    private final PluginRunner plugin;

    private DedupTarget(StoreProcess store, PluginRunner plugin) {
        this.store = store;
        this.plugin = plugin;
    }

    static DedupTarget start(Path dir) throws IOException, InterruptedException {
        StoreProcess store = StoreProcess.start(dir.resolve("store-home"));
        Map<String, String> options = store.demoOptions("pgcluster");
        options.put("log_directory", dir.resolve("plugin-logs").toString());
        Path config = dir.resolve("dedup_plugin_config.yaml");
        Files.writeString(config, ConfigFile.render(Dist.executable("gpbackup_dedup_plugin").toString(), options), StandardCharsets.UTF_8);
        return new DedupTarget(store, PluginRunner.load(config));
    }

    PluginRunner plugin() {
        return plugin;
    }

    @Override
    public void close() throws InterruptedException {
        store.close();
    }
}
