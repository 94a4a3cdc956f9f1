package io.gpdedup.dedup;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.StoreClient;
import io.gpdedup.plugin.api.CommandDispatcher;
import io.gpdedup.protocol.report.UnitStats;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The dedup plugin in-process against a real store server over loopback, its units on local disk and in a bucket. */
@ParameterizedClass
@EnumSource(LoopbackStore.Backend.class)
class DedupPluginTest {
    @Parameter
    LoopbackStore.Backend backend;
    @TempDir
    Path dir;
    private LoopbackStore store;
    private final DedupPlugin plugin = new DedupPlugin();

    private record Result(int status, byte[] out, String err) {
    }

    @BeforeEach
    void start() {
        store = LoopbackStore.start(dir.resolve("store"), backend);
    }

    @AfterEach
    void stop() {
        store.close();
    }

    private Path config(String extra) throws IOException {
        Path cfg = dir.resolve("20261123045500_dedup.yaml");
        Files.writeString(cfg, "executablepath: /opt/gpdedup/bin/gpbackup_dedup_plugin\noptions:\n"
                + "  hostname: 127.0.0.1\n  port: \"" + store.port() + "\"\n  username: " + LoopbackStore.USER + "\n"
                + "  password: " + LoopbackStore.PASSWORD + "\n  storage_unit: " + LoopbackStore.UNIT + "\n  directory: prod/cluster1\n"
                + "  log_directory: " + dir.resolve("logs") + "\n" + extra);
        return cfg;
    }

    private Result run(InputStream stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = new CommandDispatcher(plugin).run(args, stdin, out, new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(status, out.toByteArray(), err.toString(StandardCharsets.UTF_8));
    }

    private static String key(String ts, String file) {
        return "/data/gpseg0/backups/" + ts.substring(0, 8) + "/" + ts + "/" + file;
    }

    /** COPY-like text: compressible and, unlike random bytes, full of content-defined cut points. */
    static byte[] copyText(long seed, int bytes) {
        Random r = new Random(seed);
        StringBuilder sb = new StringBuilder(bytes + 200);
        long id = 1;
        while (sb.length() < bytes) {
            sb.append(id++).append('\t').append("2026-11-").append(10 + r.nextInt(18)).append(' ').append(r.nextInt(24)).append(":00:00\t")
                    .append(r.nextInt(1_000_000) / 100.0).append('\t').append(r.nextBoolean() ? "\\N" : "customer-" + r.nextInt(5000))
                    .append('\t').append("note ").append(Long.toHexString(r.nextLong())).append(" lorem ipsum dolor ").append(r.nextInt(99)).append('\n');
        }
        return Arrays.copyOf(sb.toString().getBytes(StandardCharsets.US_ASCII), bytes);
    }

    @Test
    void roundTripAndARepeatBackupStoresNothingNew() throws IOException {
        Path cfg = config("");
        byte[] data = copyText(1, 6_000_000);
        Result b = run(new ByteArrayInputStream(data), "backup_data", cfg.toString(), key("20261123045500", "gpbackup_0_20261123045500_16384"));
        assertEquals(0, b.status(), b.err());
        assertEquals("", b.err());
        Result r = run(InputStream.nullInputStream(), "restore_data", cfg.toString(), key("20261123045500", "gpbackup_0_20261123045500_16384"));
        assertEquals(0, r.status(), r.err());
        assertArrayEquals(data, r.out());

        UnitStats before;
        try (StoreClient c = store.connect()) {
            before = c.stats();
        }
        assertTrue(before.physicalBytes() < data.length / 2, "zstd must shrink COPY text: " + before.physicalBytes());
        Result again = run(new ByteArrayInputStream(data), "backup_data", cfg.toString(), key("20261124045500", "gpbackup_0_20261124045500_16384"));
        assertEquals(0, again.status(), again.err());
        try (StoreClient c = store.connect()) {
            UnitStats after = c.stats();
            assertEquals(before.chunks(), after.chunks(), "a repeat backup adds no chunk");
            assertEquals(before.physicalBytes(), after.physicalBytes());
            assertEquals(2L * data.length, after.logicalBytes() - (before.logicalBytes() - data.length));
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {11, 12, 13})
    void subsetsMatchTheStreamForRandomRanges(long seed) throws IOException {
        Path cfg = config("");
        byte[] data = copyText(seed, 3_000_000);
        String k = key("20261123045500", "gpbackup_0_20261123045500");
        assertEquals(0, run(new ByteArrayInputStream(data), "backup_data", cfg.toString(), k).status());
        Random rnd = new Random(seed);
        int n = 1 + rnd.nextInt(20);
        long[] cuts = rnd.longs(2L * n, 0, data.length + 1).sorted().toArray();
        StringBuilder offsets = new StringBuilder().append(n);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        for (int i = 0; i < n; i++) {
            offsets.append(' ').append(cuts[2 * i]).append(' ').append(cuts[2 * i + 1]);
            expected.write(data, (int) cuts[2 * i], (int) (cuts[2 * i + 1] - cuts[2 * i]));
        }
        Path file = dir.resolve("offsets");
        Files.writeString(file, offsets);
        Result r = run(InputStream.nullInputStream(), "restore_data_subset", cfg.toString(), k, file.toString());
        assertEquals(0, r.status(), r.err());
        assertArrayEquals(expected.toByteArray(), r.out());
    }

    @Test
    void emptyStreamsRoundTrip() throws IOException {
        Path cfg = config("");
        String k = key("20261123045500", "gpbackup_0_20261123045500_1");
        assertEquals(0, run(InputStream.nullInputStream(), "backup_data", cfg.toString(), k).status());
        Result r = run(InputStream.nullInputStream(), "restore_data", cfg.toString(), k);
        assertEquals(0, r.status(), r.err());
        assertEquals(0, r.out().length);
    }

    @Test
    void aFailingStdinCommitsNothing() throws IOException {
        Path cfg = config("");
        String k = key("20261123045500", "gpbackup_0_20261123045500_2");
        byte[] data = copyText(3, 2_000_000);
        InputStream failing = new InputStream() {
            int pos;

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (pos >= 1_500_000) {
                    throw new IOException("COPY was cancelled");
                }
                int n = Math.min(len, 1_500_000 - pos);
                System.arraycopy(data, pos, b, off, n);
                pos += n;
                return n;
            }
        };
        Result b = run(failing, "backup_data", cfg.toString(), k);
        assertEquals(1, b.status());
        assertTrue(b.err().contains("COPY was cancelled"), b.err());
        Result r = run(InputStream.nullInputStream(), "restore_data", cfg.toString(), k);
        assertEquals(1, r.status());
        assertEquals(0, r.out().length);
    }

    @Test
    void aDamagedChunkStopsTheRestoreWithOnlyVerifiedBytesWritten() throws IOException {
        Path cfg = config("  compression: none\n");
        byte[] data = copyText(4, 4_000_000);
        String k = key("20261123045500", "gpbackup_0_20261123045500_3");
        assertEquals(0, run(new ByteArrayInputStream(data), "backup_data", cfg.toString(), k).status());
        store.close();
        // Flip one byte in the middle of the container's data: a payload byte of some chunk.
        Path container;
        Path where = backend == LoopbackStore.Backend.S3 ? LoopbackStore.objectFile(dir.resolve("store"), "units") : dir.resolve("store");
        try (Stream<Path> files = Files.walk(where)) {
            container = files.filter(Files::isRegularFile).filter(p -> p.toString().contains("container"))
                    .filter(p -> p.toString().endsWith(".ctr"))
                    .max((a, b2) -> Long.compare(a.toFile().length(), b2.toFile().length())).orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(container);
        int at = bytes.length / 2;
        bytes[at] ^= 0x5a;
        Files.write(container, bytes);
        store = LoopbackStore.start(dir.resolve("store"), backend);
        cfg = config("  compression: none\n");
        Result r = run(InputStream.nullInputStream(), "restore_data", cfg.toString(), k);
        assertNotEquals(0, r.status(), "restore of damaged data must fail");
        assertTrue(r.out().length < data.length);
        assertArrayEquals(Arrays.copyOf(data, r.out().length), r.out(), "only verified bytes, in order, may reach stdout");
    }

    @Test
    void chunkSizesAreFrozenPerStorageUnit() throws IOException {
        Path cfg = config("");
        assertEquals(0, run(new ByteArrayInputStream(copyText(5, 100_000)), "backup_data", cfg.toString(),
                key("20261123045500", "gpbackup_0_20261123045500_4")).status());
        Path other = config("  chunk_min_size: 64KiB\n  chunk_avg_size: 256KiB\n  chunk_max_size: 1MiB\n");
        Result r = run(new ByteArrayInputStream(copyText(5, 100_000)), "backup_data", other.toString(),
                key("20261123045500", "gpbackup_0_20261123045500_5"));
        assertEquals(1, r.status());
        assertTrue(r.err().contains("was written with chunk sizes 16384/65536/262144"), r.err());
    }

    @Test
    void firstBackupsStartingTogetherAllRecordTheSameChunkSizes() throws Exception {
        // Every segment's first backup into a fresh unit records the sizes at once; the unit keeps one and refuses the rest.
        Path cfg = config("");
        int n = 8;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(n);
        try {
            java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
            java.util.List<java.util.concurrent.Future<Result>> runs = new java.util.ArrayList<>();
            for (int i = 0; i < n; i++) {
                String k = key("20261123045500", "gpbackup_" + i + "_20261123045500_7");
                runs.add(pool.submit(() -> {
                    go.await();
                    ByteArrayOutputStream err = new ByteArrayOutputStream();
                    int status = new CommandDispatcher(new DedupPlugin()).run(new String[] {"backup_data", cfg.toString(), k},
                            new ByteArrayInputStream(copyText(9, 10_000)), new ByteArrayOutputStream(), new PrintStream(err, true, StandardCharsets.UTF_8));
                    return new Result(status, new byte[0], err.toString(StandardCharsets.UTF_8));
                }));
            }
            go.countDown();
            for (var f : runs) {
                Result r = f.get();
                assertEquals(0, r.status(), r.err());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void encryptedPasswordsFollowTheEncryptKeyConvention() throws IOException {
        String secret = "c2VjcmV0LWtleS1vZi10aGlzLWNsdXN0ZXI=";
        String encrypted = PasswordCipher.encrypt(LoopbackStore.PASSWORD, secret);
        assertNotEquals(LoopbackStore.PASSWORD, encrypted);
        Path cfg = dir.resolve("20261123045500_enc.yaml");
        String base = "executablepath: /opt/gpdedup/bin/gpbackup_dedup_plugin\noptions:\n  hostname: 127.0.0.1\n  port: \"" + store.port()
                + "\"\n  username: " + LoopbackStore.USER + "\n  password: " + encrypted + "\n  password_encryption: \"on\"\n  storage_unit: "
                + LoopbackStore.UNIT + "\n  directory: d\n  log_directory: " + dir.resolve("logs") + "\n";
        Files.writeString(cfg, base + "  gpbackup_dedup_plugin: " + secret + "\n");
        String k = key("20261123045500", "gpbackup_0_20261123045500_6");
        Result ok = run(new ByteArrayInputStream(new byte[] {1, 2, 3}), "backup_data", cfg.toString(), k);
        assertEquals(0, ok.status(), ok.err());
        Files.writeString(cfg, base + "  gpbackup_dedup_plugin: another-cluster-key\n");
        Result wrongKey = run(InputStream.nullInputStream(), "restore_data", cfg.toString(), k);
        assertEquals(1, wrongKey.status());
        assertTrue(wrongKey.err().contains("not encrypted with this cluster's .encrypt key"), wrongKey.err());
        assertTrue(!wrongKey.err().contains(secret) && !wrongKey.err().contains(LoopbackStore.PASSWORD));
        Files.writeString(cfg, base);
        Result noKey = run(InputStream.nullInputStream(), "restore_data", cfg.toString(), k);
        assertTrue(noKey.err().contains("no 'gpbackup_dedup_plugin' key"), noKey.err());

        Path encryptFile = dir.resolve(".encrypt");
        Files.writeString(encryptFile, "gpbackup_dedup_plugin: " + secret + "\n");
        Files.writeString(cfg, base.replace(encrypted, "placeholder") + "  gpbackup_dedup_plugin: " + secret + "\n");
        Result enc = run(new ByteArrayInputStream((LoopbackStore.PASSWORD + "\n").getBytes(StandardCharsets.UTF_8)), "encrypt_password",
                cfg.toString(), encryptFile.toString());
        assertEquals(0, enc.status(), enc.err());
        assertEquals(LoopbackStore.PASSWORD, PasswordCipher.decrypt(new String(enc.out(), StandardCharsets.UTF_8).trim(), secret));

        // As the host agent runs it for a caller in dir: "./.encrypt" is the caller's, not the agent's.
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = new CommandDispatcher(plugin).run(new String[] {"encrypt_password", cfg.getFileName().toString(), ".encrypt"}, dir,
                io.gpdedup.plugin.api.PluginConfig::load, new ByteArrayInputStream((LoopbackStore.PASSWORD + "\n").getBytes(StandardCharsets.UTF_8)),
                out, new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
        assertEquals(LoopbackStore.PASSWORD, PasswordCipher.decrypt(out.toString(StandardCharsets.UTF_8).trim(), secret));
    }

    @Test
    void unreachableStoreIsAClearError() throws IOException {
        Path cfg = config("");
        store.close();
        Result r = run(InputStream.nullInputStream(), "setup_plugin_for_backup", cfg.toString(), dir.toString(), "master", "\"-1\"");
        assertEquals(1, r.status());
        assertTrue(r.err().contains("cannot connect to gpdedup-store at 127.0.0.1:") && r.err().contains("check options hostname and port"),
                r.err());
        assertEquals(1, r.err().split("gpdedup-store at ", -1).length - 1, "the store is named once: " + r.err());
        store = LoopbackStore.start(dir.resolve("store"), backend);
    }

    @Test
    void aDataCallWaitsForAnUnreachableStoreOnlyUpToTheConnectTimeout() throws IOException {
        Path cfg = config("  connect_timeout_seconds: \"1\"\n");
        store.close();
        String k = key("20261123045500", "gpbackup_0_20261123045500_16384");
        Result r = run(new ByteArrayInputStream(copyText(6, 10_000)), "backup_data", cfg.toString(), k);
        assertEquals(1, r.status());
        assertTrue(r.err().contains("cannot connect to gpdedup-store at 127.0.0.1:") && r.err().contains("tried for 1 s")
                && r.err().contains("raise connect_timeout_seconds"), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        store = LoopbackStore.start(dir.resolve("store"));
    }
}
