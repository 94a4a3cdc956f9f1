package io.gpdedup.dedup.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreClient;
import io.gpdedup.dedup.DedupPlugin;
import io.gpdedup.plugin.api.CommandDispatcher;
import io.gpdedup.protocol.report.VerifyReport;
import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.store.config.StoreConfig;
import io.gpdedup.store.net.StoreService;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Bytes flipped in a real store's files, then restores through the plugin and a verify: a restore
 * of an affected backup exits non-zero having written only a verified prefix of the original
 * stream, every other backup restores exactly, and verify names exactly the affected backups.
 */
@Timeout(120)
class CorruptionTest {
    private static final String TS = "20261123045500";

    enum Target { CONTAINER, RECIPE, INDEX }

    @TempDir
    Path dir;

    private StoreService store;

    private void start() throws IOException {
        StoreConfig cfg = StoreConfig.defaults(dir.resolve("store"), Map.of("unit1", Map.of("backup", PasswordHash.create("s3cret".toCharArray(), 1_000))))
                .withPort(0);
        store = StoreService.start(cfg, StoreService.openEngine(cfg));
    }

    private Path config() throws IOException {
        Path cfg = dir.resolve(TS + "_dedup.yaml");
        Files.writeString(cfg, "executablepath: /opt/gpdedup/bin/gpbackup_dedup_plugin\noptions:\n"
                + "  hostname: 127.0.0.1\n  port: \"" + store.address().getPort() + "\"\n  username: backup\n  password: s3cret\n"
                + "  storage_unit: unit1\n  directory: prod\n  compression: none\n  log_directory: " + dir.resolve("logs") + "\n");
        return cfg;
    }

    private static String key(int oid) {
        return "/data/gpseg0/backups/20261123/" + TS + "/gpbackup_0_" + TS + "_" + oid;
    }

    /** The store object a key becomes: the directory option, then the key from its backups/ component. */
    private static String object(int oid) {
        return "prod/backups/20261123/" + TS + "/gpbackup_0_" + TS + "_" + oid;
    }

    private record Result(int status, byte[] out, String err) {
    }

    private static Result run(InputStream stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = new CommandDispatcher(new DedupPlugin()).run(args, stdin, out, new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(status, out.toByteArray(), err.toString(StandardCharsets.UTF_8));
    }

    private static byte[] random(long seed, int n) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @ParameterizedTest
    @EnumSource(Target.class)
    void flippedBytesAreCaughtAndNamed(Target target) throws IOException {
        start();
        // 1 is written first, so its first chunk is the first record of the first container;
        // 3 begins with 1's bytes and so shares that chunk; 2 shares nothing.
        byte[] one = random(1, 1_500_000);
        byte[] two = random(2, 1_500_000);
        byte[] three = Arrays.copyOf(one, 2_000_000);
        System.arraycopy(random(3, 500_000), 0, three, 1_500_000, 500_000);
        Map<Integer, byte[]> backups = new LinkedHashMap<>();
        backups.put(1, one);
        backups.put(2, two);
        backups.put(3, three);
        Path cfg = config();
        for (var b : backups.entrySet()) {
            Result r = run(new ByteArrayInputStream(b.getValue()), "backup_data", cfg.toString(), key(b.getKey()));
            assertEquals(0, r.status(), r.err());
        }
        store.close(); // a clean stop writes index.snap
        Path unit = dir.resolve("store").resolve("units").resolve("unit1");
        Set<String> affected = new TreeSet<>();
        switch (target) {
            case CONTAINER -> {
                Path first;
                try (Stream<Path> files = Files.list(unit.resolve("containers"))) {
                    first = files.filter(p -> p.toString().endsWith(".ctr")).sorted().findFirst().orElseThrow();
                }
                flip(first, 16 + 49 + 100); // a payload byte of the first chunk record
                affected.add(object(1));
                affected.add(object(3));
            }
            case RECIPE -> {
                Path recipe;
                try (Stream<Path> files = Files.list(unit.resolve("recipes"))) {
                    recipe = files.filter(p -> p.getFileName().toString().endsWith("_2.rcp")).findFirst().orElseThrow();
                }
                flip(recipe, (int) (Files.size(recipe) / 2));
                affected.add(object(2));
            }
            case INDEX -> {
                Path snap = unit.resolve("index.snap");
                assertTrue(Files.exists(snap), "a clean stop writes index.snap");
                flip(snap, (int) (Files.size(snap) / 2));
                // A damaged snapshot is a cache miss: the index is rebuilt from the containers.
            }
        }
        start();
        cfg = config();
        long verified = 0;
        for (var b : backups.entrySet()) {
            Result r = run(InputStream.nullInputStream(), "restore_data", cfg.toString(), key(b.getKey()));
            if (affected.contains(object(b.getKey()))) {
                assertNotEquals(0, r.status(), "restore of damaged backup " + b.getKey() + " must fail");
                assertTrue(r.out().length < b.getValue().length);
                assertArrayEquals(Arrays.copyOf(b.getValue(), r.out().length), r.out(), "only verified bytes may reach stdout");
            } else {
                assertEquals(0, r.status(), r.err());
                assertArrayEquals(b.getValue(), r.out());
                verified += r.out().length;
            }
        }
        try (StoreClient c = StoreClient.connect(ClientSettings.of("127.0.0.1", store.address().getPort(), "unit1", "backup", "s3cret"))) {
            VerifyReport v = c.verify();
            Set<String> named = new TreeSet<>(v.damagedObjects());
            System.out.printf("corruption %s: verify named %s (problems %s); %d bytes of unaffected backups verified%n",
                    target, v.damagedObjects(), v.problems(), verified);
            assertEquals(affected, named, "verify must name exactly the affected backups");
        } finally {
            store.close();
        }
    }

    private static void flip(Path file, int at) throws IOException {
        byte[] b = Files.readAllBytes(file);
        b[at] ^= 0x5A;
        Files.write(file, b);
    }
}
