package io.gpdedup.plugin.localfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.plugin.api.ByteRanges;
import io.gpdedup.plugin.api.Hook;
import io.gpdedup.plugin.api.HookScope;
import io.gpdedup.plugin.api.PluginException;
import io.gpdedup.plugin.api.RemoteDirectory;
import io.gpdedup.plugin.api.StoredData;
import io.gpdedup.protocol.naming.BackupTimestamp;
import io.gpdedup.protocol.naming.RemoteName;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectoryBackendTest {
    @TempDir
    Path root;

    private static RemoteName name(String ts, String file) {
        return RemoteName.fromLocalPath("/seg/backups/" + ts.substring(0, 8) + "/" + ts + "/" + file);
    }

    private static byte[] restore(DirectoryBackend b, RemoteName n) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (StoredData d = b.openData(n)) {
            d.writeTo(out);
        }
        return out.toByteArray();
    }

    @Test
    void aFailingStdinLeavesNothingVisible() throws IOException {
        DirectoryBackend b = new DirectoryBackend(root);
        RemoteName n = name("20261123045500", "gpbackup_0_20261123045500_1");
        InputStream failing = new InputStream() {
            int left = 3 << 20;

            @Override
            public int read() {
                throw new UnsupportedOperationException();
            }

            @Override
            public int read(byte[] buf, int off, int len) throws IOException {
                if (left <= 0) {
                    throw new IOException("pipe broke");
                }
                int n = Math.min(len, left);
                left -= n;
                return n;
            }
        };
        assertThrows(IOException.class, () -> b.backupData(n, failing));
        assertThrows(PluginException.class, () -> b.openData(n));
        try (Stream<Path> files = Files.walk(root)) {
            assertEquals(0, files.filter(Files::isRegularFile).count(), "no temp file may remain");
        }
    }

    @Test
    void rangesUsePositionedReads() throws IOException {
        DirectoryBackend b = new DirectoryBackend(root);
        RemoteName n = name("20261123045500", "gpbackup_0_20261123045500");
        byte[] data = new byte[1_000_001];
        new Random(7).nextBytes(data);
        b.backupData(n, new ByteArrayInputStream(data));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (StoredData d = b.openData(n)) {
            d.writeRanges(ByteRanges.parse("2 0 700000 900000 900001"), out);
        }
        byte[] got = out.toByteArray();
        assertEquals(700001, got.length);
        for (int i = 0; i < 700000; i++) {
            if (got[i] != data[i]) {
                throw new AssertionError("byte " + i);
            }
        }
        assertEquals(data[900000], got[700000]);
    }

    @Test
    void deleteBackupRemovesOnlyThatTimestamp() throws IOException {
        DirectoryBackend b = new DirectoryBackend(root);
        RemoteName t1 = name("20261123045500", "f");
        RemoteName t2 = name("20261123045501", "f");
        b.backupData(t1, new ByteArrayInputStream(new byte[] {1}));
        b.backupData(t2, new ByteArrayInputStream(new byte[] {2}));
        b.deleteBackup(BackupTimestamp.parse("20261123045500"));
        assertThrows(PluginException.class, () -> b.openData(t1));
        assertArrayEquals(new byte[] {2}, restore(b, t2));
        b.deleteBackup(BackupTimestamp.parse("20261123045501"));
        assertTrue(Files.notExists(root.resolve("backups/20261123")));
    }

    @Test
    void concurrentSetupHooksAreIdempotent() throws Exception {
        Path storeDir = root.resolve("not/yet/there");
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            List<Future<?>> results = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                int content = i;
                results.add(pool.submit(() -> {
                    new DirectoryBackend(storeDir).hook(new Hook(Hook.Kind.SETUP_FOR_BACKUP, root, HookScope.SEGMENT_HOST, OptionalInt.of(content)));
                    return null;
                }));
            }
            for (Future<?> f : results) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        assertTrue(Files.isDirectory(storeDir));
        assertThrows(PluginException.class, () -> new DirectoryBackend(root.resolve("missing"))
                .hook(new Hook(Hook.Kind.SETUP_FOR_RESTORE, root, HookScope.SEGMENT, OptionalInt.of(0))));
    }

    @Test
    void listAndDeleteDirectory() throws IOException {
        DirectoryBackend b = new DirectoryBackend(root);
        b.backupData(name("20261123045500", "a"), new ByteArrayInputStream(new byte[3]));
        b.backupData(name("20261124045500", "b"), new ByteArrayInputStream(new byte[5]));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        b.listDirectory(Optional.empty(), new PrintStream(out, true, StandardCharsets.UTF_8));
        assertEquals("backups/20261123/20261123045500/a 3\nbackups/20261124/20261124045500/b 5\n", out.toString(StandardCharsets.UTF_8));
        b.deleteDirectory(RemoteDirectory.parse("backups/20261123"));
        out.reset();
        b.listDirectory(Optional.of(RemoteDirectory.parse("/backups")), new PrintStream(out, true, StandardCharsets.UTF_8));
        assertEquals("backups/20261124/20261124045500/b 5\n", out.toString(StandardCharsets.UTF_8));
    }
}
