package io.gpdedup.e2e.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreClient;
import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.StoreBackend;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.e2e.shell.PluginShell;
import io.gpdedup.protocol.wire.ReplicaTarget;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dist/bin/gpdedup-store} started by hand under {@code umask 022} keeps every file it makes
 * 0600 and every directory 0700, after a backup and restore through {@code dist/bin/gpbackup_dedup_plugin}:
 * containers, recipes, the index snapshot, the port file, the replication queue, the log file, and
 * with S3 the cache and spool. A data directory left open to others by an older store is closed
 * at start, with a warning. Control: a file the same shell makes under that umask is 0644.
 */
@Timeout(300)
class OwnerOnlyFilesTest {
    private static final String UMASK = "022";
    private static final Set<PosixFilePermission> GROUP_OR_OTHERS = Set.of(PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE,
            PosixFilePermission.OTHERS_EXECUTE);
    private static final String KEY = "/data/gpseg0/backups/20261128/20261128100000/gpbackup_0_20261128100000_16384";

    @TempDir
    Path dir;

    @Test
    void aLocalStoreUnderALooseUmaskMakesOnlyOwnerOnlyFiles() throws Exception {
        Path control = dir.resolve("control");
        new ProcessBuilder("sh", "-c", "umask " + UMASK + " && : > \"$0\"", control.toString()).start().waitFor();
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(control)), "the umask this test runs the store under");

        Path home = dir.resolve("store-home");
        Path data = home.resolve("data");
        // As an older store, or a mkdir under umask 022, left it.
        Files.createDirectories(data);
        Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwxr-xr-x"));
        String password = "not-the-demo-password";
        int remotePort = closedPort();
        StoreProcess.writeConfig(home, "data-dir: " + data + "\nlog-file: " + data.resolve("log").resolve("store.log") + "\n"
                + "replication-targets:\n  dr:\n    host: 127.0.0.1\n    port: " + remotePort + "\n    tls: false\n", password, 1_000);
        StoreProcess store = StoreProcess.startUnderUmask(home, UMASK);
        try {
            backUpAndRestore(store.port(), StoreProcess.UNIT, StoreProcess.USER, password);
            // A job that cannot reach its remote stays queued in replication.json.
            try (StoreClient client = StoreClient.connect(ClientSettings.of("127.0.0.1", store.port(), StoreProcess.UNIT, StoreProcess.USER, password))) {
                client.replicate("cluster1/", new ReplicaTarget("127.0.0.1", remotePort, "dr", "copier", "dr/"), "remote-secret");
            }
            assertTrue(Files.exists(data.resolve("store.port")), "the store's own port file");
            assertEquals(List.of(), looserThanOwnerOnly(data), "while serving");
            // serve --port-file, written where the caller asked
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(home.resolve("store.port"))));
        } finally {
            store.close();
        }
        assertEquals(List.of(), looserThanOwnerOnly(data), "after a clean stop");
        Set<String> names = names(data);
        for (String expected : List.of("units", "prod", "containers", "recipes", "index.snap", "replication.json", "store.lock", "log", "store.log")) {
            assertTrue(names.contains(expected), "the check saw " + expected + ": " + names);
        }
        assertTrue(names.stream().anyMatch(n -> n.endsWith(".ctr")) && names.stream().anyMatch(n -> n.endsWith(".rcp")), names.toString());
        assertTrue(Files.readString(data.resolve("log").resolve("store.log"))
                .contains("data directory " + data + " was open to other users (rwxr-xr-x): set to rwx------"), "the tightening is logged");
    }

    @Test
    void anS3StoreUnderALooseUmaskKeepsItsCacheAndSpoolOwnerOnly() throws Exception {
        Path home = dir.resolve("s3-home");
        StoreBackend.S3.prepare(home);
        Path data = home.resolve(".gpdedup").resolve("store");
        StoreProcess store = StoreProcess.startUnderUmask(home, UMASK);
        try {
            backUpAndRestore(store.port(), StoreProcess.DEMO_UNIT, StoreProcess.DEMO_USER, StoreProcess.DEMO_PASSWORD);
            assertEquals(List.of(), looserThanOwnerOnly(data), "while serving");
        } finally {
            store.close();
        }
        assertEquals(List.of(), looserThanOwnerOnly(data), "after a clean stop");
        Set<String> names = names(data);
        for (String expected : List.of("cache", "read", "spool", "store.id", "store.lock")) {
            assertTrue(names.contains(expected), "the check saw " + expected + ": " + names);
        }
    }

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private void backUpAndRestore(int port, String unit, String user, String password) throws IOException {
        Path config = Files.writeString(dir.resolve("plugin.yaml"), "executablepath: " + Dist.executable("gpbackup_dedup_plugin")
                + "\noptions:\n  hostname: 127.0.0.1\n  port: \"" + port + "\"\n  username: " + user + "\n  password: " + password
                + "\n  storage_unit: " + unit + "\n  directory: cluster1\n  log_directory: " + dir.resolve("logs") + "\n");
        PluginShell plugin = new PluginShell(Dist.executable("gpbackup_dedup_plugin"), Files.createDirectories(dir.resolve("cwd")),
                Files.createDirectories(dir.resolve("home")), Map.of("GPDEDUP_AGENT", "off"));
        byte[] bytes = SeededBytes.array(5, 3_000_000);
        plugin.run(new ByteArrayInputStream(bytes), "backup_data", config.toString(), KEY).assertSucceeded();
        assertArrayEquals(bytes, plugin.run("restore_data", config.toString(), KEY).assertSucceeded().stdout());
    }

    /**
     * Every path under {@code root}, itself included, that group or others may use, with its mode.
     * A running store renames and removes temp files while the walk runs: a path gone by the time
     * it is looked at has no mode to check.
     */
    static List<String> looserThanOwnerOnly(Path root) throws IOException {
        List<String> open = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes a) throws IOException {
                return check(d);
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes a) throws IOException {
                return check(f);
            }

            @Override
            public FileVisitResult visitFileFailed(Path f, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }

            private FileVisitResult check(Path p) throws IOException {
                Set<PosixFilePermission> mode;
                try {
                    mode = Files.getPosixFilePermissions(p);
                } catch (NoSuchFileException e) {
                    return FileVisitResult.CONTINUE;
                }
                if (mode.stream().anyMatch(GROUP_OR_OTHERS::contains)) {
                    open.add(root.relativize(p) + " " + PosixFilePermissions.toString(mode));
                }
                return FileVisitResult.CONTINUE;
            }
        });
        return open;
    }

    private static Set<String> names(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.map(p -> p.getFileName().toString()).collect(java.util.stream.Collectors.toCollection(TreeSet::new));
        }
    }
}
