package io.gpdedup.e2e.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpdedup.e2e.data.RepeatedBlock;
import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.data.Sha256Sink;
import io.gpdedup.e2e.fixture.DedupFixture;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.HostAgents;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.e2e.layout.BackupDirectory;
import io.gpdedup.e2e.layout.ConfigFile;
import io.gpdedup.e2e.layout.Timestamps;
import io.gpdedup.e2e.shell.PluginShell;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a stream keeps of every chunk until it ends (its recipe, and the fingerprints its session
 * asks about again on a new lease) is 36 bytes in pages, not objects: a stream of over a million
 * chunks backs up and restores byte for byte through a host agent of 96 MiB. Held as objects,
 * about 110 bytes a chunk, the same stream took down an agent of 128 MiB. In single-data-file
 * mode a segment's whole backup is one stream, so this is what bounds the data a host's segments
 * can back up at once (docs/dedup-plugin.md, "Memory").
 */
@Timeout(300)
class ManyChunksHeapTest {
    private static final String PASSWORD = "not-the-demo-one";
    private static final long STREAM_BYTES = 320L << 20;

    @TempDir
    Path dir;

    @Test
    void overAMillionChunksBackUpAndRestoreThroughAHostAgentOf96MiB() throws Exception {
        Path home = dir.resolve("store-home");
        // Recipe frames of 1 MiB, so that the commit adds little beside the list it sends.
        StoreProcess.writeConfig(home, "max-frame-bytes: 1048576\n", PASSWORD, 1_000);
        Path agentDir = Files.createDirectories(dir.resolve("agent"));
        Files.setPosixFilePermissions(agentDir, PosixFilePermissions.fromString("rwx------"));
        try (StoreProcess store = StoreProcess.start(home)) {
            Path executable = Dist.copyWithAgentFlags(dir.resolve("install"), DedupFixture.EXECUTABLE, "-Xmx96m");
            Map<String, String> options = new LinkedHashMap<>();
            options.put("hostname", "127.0.0.1");
            options.put("port", String.valueOf(store.port()));
            options.put("username", StoreProcess.USER);
            options.put("password", PASSWORD);
            options.put("storage_unit", StoreProcess.UNIT);
            options.put("directory", "cluster1");
            options.put("log_directory", dir.resolve("logs").toString());
            // 256-byte chunks on average: 320 MiB make about 1.15 million of them.
            options.put("chunk_min_size", "64");
            options.put("chunk_avg_size", "256");
            options.put("chunk_max_size", "1024");
            String cfg = Files.writeString(dir.resolve("dedup.yaml"), ConfigFile.render(executable.toString(), options)).toString();
            PluginShell plugin = new PluginShell(executable, Files.createDirectories(dir.resolve("cwd")), Files.createDirectories(dir.resolve("home")),
                    Map.of("GPDEDUP_AGENT", "require", "GPDEDUP_AGENT_DIR", agentDir.toString()));
            String key = BackupDirectory.of(dir, 0, new Timestamps().next()).dataKey(16384);
            try {
                plugin.run(stream(), "backup_data", cfg, key).assertSucceeded();
                Sha256Sink restored = new Sha256Sink();
                plugin.stream(null, restored, "restore_data", cfg, key).assertSucceeded();
                assertEquals(STREAM_BYTES, restored.count());
                assertEquals(Sha256Sink.of(stream()), restored.hex(), "the restore");
            } finally {
                HostAgents.kill(agentDir);
            }
        }
    }

    private static RepeatedBlock stream() {
        return new RepeatedBlock(SeededBytes.array(21, 4 << 20), STREAM_BYTES);
    }
}
