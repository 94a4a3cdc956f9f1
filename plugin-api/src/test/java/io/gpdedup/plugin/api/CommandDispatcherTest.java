package io.gpdedup.plugin.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.naming.BackupTimestamp;
import io.gpdedup.protocol.naming.RemoteName;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The dispatcher against a backend that keeps objects in memory: argument handling, not storage. */
class CommandDispatcherTest {
    /** The table whose backup exhausts the heap. */
    private static final int TOO_LARGE_OID = 99999;
    @TempDir
    Path dir;
    private final Map<String, byte[]> objects = new ConcurrentHashMap<>();
    private final List<Hook> hooks = new ArrayList<>();
    private Path cfg;
    private String key;

    private final PluginDefinition plugin = new PluginDefinition() {
        @Override
        public String name() {
            return "gpbackup_memory_plugin";
        }

        @Override
        public String version() {
            return "1.2.3";
        }

        @Override
        public List<OptionSpec> options() {
            return List.of(OptionSpec.optional("flavour", OptionSpec.Type.STRING, "plain", "test option"));
        }

        @Override
        public StorageBackend open(PluginOptions options, PluginLog log) {
            return new MemoryBackend();
        }
    };

    private final class MemoryBackend implements StorageBackend {
        @Override
        public void hook(Hook hook) {
            hooks.add(hook);
        }

        @Override
        public void backupData(RemoteName name, InputStream in) throws IOException {
            if (name.path().endsWith("_" + TOO_LARGE_OID)) {
                // As a worker's exhausted heap reaches the calling thread: wrapped.
                throw new IOException(new OutOfMemoryError("Java heap space"));
            }
            objects.put(name.path(), in.readAllBytes());
        }

        @Override
        public StoredData openData(RemoteName name) {
            byte[] data = objects.get(name.path());
            if (data == null) {
                throw new PluginException("no object " + name);
            }
            return new StoredData() {
                @Override
                public long length() {
                    return data.length;
                }

                @Override
                public void writeTo(OutputStream out) throws IOException {
                    out.write(data);
                }

                @Override
                public void writeRanges(ByteRanges ranges, OutputStream out) throws IOException {
                    for (int i = 0; i < ranges.count(); i++) {
                        out.write(data, (int) ranges.start(i), (int) (ranges.end(i) - ranges.start(i)));
                    }
                }
            };
        }

        @Override
        public void deleteBackup(BackupTimestamp timestamp) {
            objects.keySet().removeIf(k -> k.startsWith(RemoteName.backupPrefix(timestamp) + "/"));
        }

        @Override
        public void listDirectory(Optional<RemoteDirectory> directory, PrintStream out) {
            objects.keySet().stream().sorted().filter(k -> directory.map(d -> d.contains(k)).orElse(true)).forEach(out::println);
        }

        @Override
        public void deleteDirectory(RemoteDirectory directory) {
            objects.keySet().removeIf(directory::contains);
        }
    }

    private record Result(int status, byte[] out, String err) {
        String outText() {
            return new String(out, StandardCharsets.UTF_8);
        }
    }

    private Result run(byte[] stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = new CommandDispatcher(plugin).run(args, new ByteArrayInputStream(stdin), out,
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(status, out.toByteArray(), err.toString(StandardCharsets.UTF_8));
    }

    private Result run(String... args) {
        return run(new byte[0], args);
    }

    @BeforeEach
    void config() throws IOException {
        cfg = dir.resolve("20261123045500_memory.yaml");
        Files.writeString(cfg, "executablepath: /opt/x/gpbackup_memory_plugin\noptions:\n  log_directory: " + dir.resolve("logs") + "\n");
        key = dir.resolve("seg0/backups/20261123/20261123045500/gpbackup_0_20261123045500_16384").toString();
    }

    @Test
    void versionStringsAreExact() {
        assertEquals("0.5.0\n", run("plugin_api_version").outText());
        Result v = run("--version");
        assertEquals("gpbackup_memory_plugin version 1.2.3\n", v.outText());
        assertEquals(3, v.outText().trim().split(" ").length);
        assertEquals("", v.err());
    }

    @Test
    void unknownCommandPrintsUsage() {
        Result r = run("unknown_command");
        assertEquals(2, r.status());
        assertEquals(0, r.out().length);
        assertTrue(r.err().contains("usage:"), r.err());
        assertEquals(2, run().status());
    }

    @ParameterizedTest
    @ValueSource(strings = {"plugin_api_version x", "backup_data", "backup_data CFG", "backup_data CFG a b", "restore_data_subset CFG a",
        "setup_plugin_for_backup CFG dir", "setup_plugin_for_backup CFG dir master 1 2", "delete_backup CFG", "list_directory",
        "list_directory CFG a b", "delete_directory CFG"})
    void wrongArgumentCounts(String line) {
        Result r = run(line.replace("CFG", cfg.toString()).split(" "));
        assertEquals(2, r.status(), line);
        assertEquals(0, r.out().length);
        assertTrue(r.err().contains("usage:"));
    }

    @Test
    void roundTripIsSilentOnStderr() {
        byte[] data = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
        Result b = run(data, "backup_data", cfg.toString(), key);
        assertEquals(0, b.status(), b.err());
        assertEquals("", b.err());
        assertEquals(0, b.out().length);
        Result r = run("restore_data", cfg.toString(), key);
        assertEquals(0, r.status());
        assertArrayEquals(data, r.out());
        assertEquals("", r.err());
    }

    @Test
    void subsetPastTheEndWritesNothing() throws IOException {
        run("0123456789".getBytes(StandardCharsets.US_ASCII), "backup_data", cfg.toString(), key);
        Path ok = dir.resolve("ok");
        Files.writeString(ok, "2 1 3 8 10");
        assertEquals("1289", run("restore_data_subset", cfg.toString(), key, ok.toString()).outText());
        Path past = dir.resolve("past");
        Files.writeString(past, "2 1 3 8 11");
        Result r = run("restore_data_subset", cfg.toString(), key, past.toString());
        assertEquals(1, r.status());
        assertEquals(0, r.out().length);
        assertTrue(r.err().contains("past the end"), r.err());
    }

    @Test
    void restoreFileOfAMissingObjectCreatesNothing() throws IOException {
        Path local = dir.resolve("seg0/backups/20261123/20261123045500/gpbackup_20261123045500_toc.yaml");
        Files.createDirectories(local.getParent());
        Result r = run("restore_file", cfg.toString(), local.toString());
        assertEquals(1, r.status());
        try (var files = Files.list(local.getParent())) {
            assertEquals(0, files.count());
        }
    }

    @Test
    void backupFileLeavesTheLocalCopyAndRestoreFileRecreatesIt() throws IOException {
        Path local = dir.resolve("seg0/backups/20261123/20261123045500/gpbackup_20261123045500_toc.yaml");
        Files.createDirectories(local.getParent());
        Files.writeString(local, "this is some text\n");
        assertEquals(0, run("backup_file", cfg.toString(), local.toString()).status());
        assertTrue(Files.exists(local));
        Files.delete(local);
        assertEquals(0, run("restore_file", cfg.toString(), local.toString()).status());
        assertEquals("this is some text\n", Files.readString(local));
    }

    @Test
    void hooksAcceptBothScopesAndQuotedIds() {
        assertEquals(0, run("setup_plugin_for_backup", cfg.toString(), dir.toString(), "master", "\"-1\"").status());
        assertEquals(0, run("setup_plugin_for_restore", cfg.toString(), dir.toString(), "coordinator", "-1").status());
        assertEquals(0, run("cleanup_plugin_for_backup", cfg.toString(), dir.toString(), "segment_host").status());
        assertEquals(0, run("cleanup_plugin_for_restore", cfg.toString(), dir.toString(), "segment", "\"0\"").status());
        assertEquals(4, hooks.size());
        assertEquals(HookScope.COORDINATOR, hooks.get(0).scope());
        assertEquals(-1, hooks.get(0).contentId().getAsInt());
        assertFalse(hooks.get(2).contentId().isPresent());
        assertEquals(1, run("setup_plugin_for_backup", cfg.toString(), dir.toString(), "cluster").status());
    }

    @Test
    void deleteBackupTakesOnlyFourteenDigits() {
        Result r = run("delete_backup", cfg.toString(), "2026112304550");
        assertEquals(1, r.status());
        assertTrue(r.err().contains("14 digits"), r.err());
    }

    @Test
    void errorsAreLoggedAndPrinted() throws IOException {
        Result r = run("restore_data", cfg.toString(), key);
        assertEquals(1, r.status());
        assertTrue(r.err().startsWith("gpbackup_memory_plugin: restore_data: no object"), r.err());
        try (var logs = Files.list(dir.resolve("logs"))) {
            Path log = logs.findFirst().orElseThrow();
            assertTrue(log.getFileName().toString().matches("gpbackup_memory_plugin_\\d{8}\\.log"));
            assertTrue(Files.readString(log).contains("[ERROR]:-restore_data: no object"));
        }
    }

    @Test
    void anExhaustedHeapIsOneLineNamingTheSettingAndNoObject() {
        String tooLarge = key.replace("_16384", "_" + TOO_LARGE_OID);
        Result r = run(new byte[] {1, 2, 3}, "backup_data", cfg.toString(), tooLarge);
        assertEquals(1, r.status());
        assertEquals("gpbackup_memory_plugin: backup_data: out of memory: the JVM's max heap is too small for what this process holds"
                + " (raise -Xmx in lib/gpbackup_memory_plugin.launch)\n", r.err());
        assertTrue(objects.isEmpty());
    }

    @Test
    void badConfigFailsBeforeTheBackendOpens() throws IOException {
        Files.writeString(cfg, "executablepath: /x\noptions:\n  colour: blue\n");
        Result r = run(new byte[] {1, 2, 3}, "backup_data", cfg.toString(), key);
        assertEquals(1, r.status());
        assertTrue(r.err().contains(cfg + ":3: unknown option 'colour'"), r.err());
        assertTrue(objects.isEmpty());
    }
}
