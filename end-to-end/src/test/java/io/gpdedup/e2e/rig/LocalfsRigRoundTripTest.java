package io.gpdedup.e2e.rig;

import io.gpdedup.e2e.fixture.LocalfsFixture;
import io.gpdedup.e2e.fixture.PluginFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@link RigRoundTrip} through {@code gpbackup_localfs_plugin}, with gpbackup's default gzip in
 * jobs mode. It takes no {@code restore_subset} option, so filtered restores read whole streams.
 */
class LocalfsRigRoundTripTest extends RigRoundTrip {
    @Override
    PluginFixture newFixture() {
        return new LocalfsFixture();
    }

    @Override
    Map<String, String> extraOptions() {
        return Map.of();
    }

    @Override
    List<String> compressionFlags() {
        return List.of();
    }

    @Override
    void afterFilteredRestore(String timestamp) {
        // the restore comparisons are the check: no subset calls to look for
    }

    @Override
    void afterRepeatBackup(String first, String second) {
        // localfs stores every backup whole: nothing to compare beyond the restore
    }

    @Override
    long spaceHeld() throws Exception {
        Path dir = Path.of(plugin.options().get("directory"));
        if (!Files.exists(dir)) {
            return 0;
        }
        long total = 0;
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.filter(Files::isRegularFile).toList()) {
                total += Files.size(p);
            }
        }
        return total;
    }
}
