package io.gpdedup.e2e.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.fixture.DedupFixture;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.HostAgents;
import io.gpdedup.e2e.fixture.StoreBackend;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.e2e.shell.PluginShell;
import io.gpdedup.testsupport.Damage;
import io.gpdedup.testsupport.S3Server;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code gpdedup-store verify --backup} through the executables: backups made by
 * {@code dist/bin/gpbackup_dedup_plugin backup_data} as gpbackup sends them, two cluster directories
 * with a backup of the same timestamp, on a unit on local disk and on one in a bucket (S3Proxy). A
 * healthy backup is restorable (text and JSON); then one byte of one of its chunks is changed where
 * the store keeps it, and the backup is NOT restorable (exit 3) naming exactly that object, while
 * another backup stays restorable and the plugin's own restore of the damaged object fails too.
 * On local disk the record's CRC is made to match again, so that only the command's own check of
 * the chunk's SHA-256 can catch it; in the bucket the record is left failing its CRC, which the
 * store reports when the chunk is read.
 */
@Timeout(300)
class BackupVerifyTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String T1 = "20261101100000";
    private static final String T2 = "20261102100000";
    /** Random bytes: stored as they come (codec NONE), so a piece of them can be found in a container. */
    private static final byte[] A = SeededBytes.array(1, 3_000_000);
    private static final byte[] B = SeededBytes.array(2, 2_000_000);
    private static final byte[] C = SeededBytes.array(3, 1_000_000);
    private static final byte[] D = SeededBytes.array(4, 1_000_000);

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(StoreBackend.class)
    void aBackupIsRestorableUntilOneOfItsChunksIsDamaged(StoreBackend backend) throws Exception {
        Path home = dir.resolve("store-home");
        Path agentDir = dir.resolve("agent");
        Path passwordFile = Files.writeString(dir.resolve("password"), StoreProcess.DEMO_PASSWORD + "\n");
        StoreProcess store = StoreProcess.start(home, backend);
        try {
            PluginShell plugin = new PluginShell(Dist.executable(DedupFixture.EXECUTABLE), Files.createDirectories(dir.resolve("cwd")),
                    Files.createDirectories(dir.resolve("home")), Map.of("GPDEDUP_AGENT_DIR", agentDir.toString()));
            Path cluster1 = pluginConfig(store, "cluster1");
            Path cluster2 = pluginConfig(store, "cluster2");
            StoreAdmin admin = new StoreAdmin(dir, home, List.of("--port", String.valueOf(store.port()), "--unit", StoreProcess.DEMO_UNIT,
                    "--user", StoreProcess.DEMO_USER, "--password-file", passwordFile.toString()));

            backUp(plugin, cluster1, key(0, T1), A);
            backUp(plugin, cluster1, key(1, T1), B);
            backUp(plugin, cluster2, key(0, T1), C);
            backUp(plugin, cluster1, key(0, T2), D);

            StoreAdmin.Result all = admin.run("verify", "--backup", T1);
            assertEquals(0, all.exit(), all::toString);
            assertTrue(all.stdout().contains("directories: cluster1, cluster2"), all::toString);
            assertEquals(3, all.stdout().lines().filter(l -> l.startsWith("OK ")).count(), all::toString);
            assertEquals("backup " + T1 + ": restorable", last(all.stdout()), all::toString);

            JsonNode one = admin.run("verify", "--backup", T1, "--directory", "cluster1", "--json").json();
            assertEquals(T1, one.get("backup").asText());
            assertEquals(List.of("cluster1"), texts(one.get("directories")));
            assertEquals(2, one.get("objects").size(), one::toPrettyString);
            for (JsonNode o : one.get("objects")) {
                assertEquals("ok", o.get("status").asText(), one::toPrettyString);
                assertTrue(o.get("chunks_checked").asLong() > 0, one::toPrettyString);
                assertEquals(o.get("length").asLong(), o.get("bytes_checked").asLong(), one::toPrettyString);
            }
            assertEquals(A.length + B.length, one.get("bytes_checked").asLong(), one::toPrettyString);
            assertTrue(one.get("restorable").asBoolean(), one::toPrettyString);

            StoreAdmin.Result unknown = admin.run("verify", "--backup", "20261103100000");
            assertEquals(1, unknown.exit(), unknown::toString);
            assertEquals("gpdedup-store: no backup 20261103100000 in unit gpdedup (in any directory)", unknown.stderr().strip());
            StoreAdmin.Result elsewhere = admin.run("verify", "--backup", T2, "--directory", "cluster2");
            assertEquals(1, elsewhere.exit(), elsewhere::toString);
            assertEquals("gpdedup-store: no backup " + T2 + " in unit gpdedup under directory cluster2", elsewhere.stderr().strip());
            StoreAdmin.Result badTimestamp = admin.run("verify", "--backup", "2026-11-01");
            assertEquals(2, badTimestamp.exit(), badTimestamp::toString);
            assertEquals("gpdedup-store: verify: invalid backup timestamp '2026-11-01': expected exactly 14 digits", badTimestamp.stderr().strip());
            StoreAdmin.Result directoryAlone = admin.run("verify", "--directory", "cluster1");
            assertEquals(2, directoryAlone.exit(), directoryAlone::toString);
            assertEquals("gpdedup-store: verify: --directory goes with --backup TIMESTAMP", directoryAlone.stderr().strip());

            if (backend == StoreBackend.LOCAL) {
                damageChunkOf(home, A, true);
            } else {
                store.close();
                damageChunkOf(bucketDirectory(home), A, false);
                store = store.restart(); // a new process reads the container from the bucket again, with an empty cache
            }

            StoreAdmin.Result damaged = admin.run("verify", "--backup", T1);
            assertEquals(3, damaged.exit(), damaged::toString);
            List<String> hit = damaged.stdout().lines().filter(l -> l.startsWith("DAMAGED ")).toList();
            assertEquals(1, hit.size(), damaged::toString);
            assertTrue(hit.get(0).startsWith("DAMAGED  cluster1/" + key(0, T1).substring("/data/gpseg0/".length()) + ": chunk "), damaged::toString);
            assertTrue(hit.get(0).contains(backend == StoreBackend.LOCAL ? "is damaged: its SHA-256 does not match" : "cannot be read"),
                    damaged::toString);
            assertEquals("backup " + T1 + ": NOT restorable (1 of 3 objects damaged)", last(damaged.stdout()), damaged::toString);

            StoreAdmin.Result json = admin.run("verify", "--backup", T1, "--json");
            assertEquals(3, json.exit(), json::toString);
            JsonNode doc = JSON.readTree(json.stdout());
            assertFalse(doc.get("restorable").asBoolean(), doc::toPrettyString);
            assertEquals(1, doc.get("objects_damaged").asInt(), doc::toPrettyString);
            List<String> statuses = new ArrayList<>();
            doc.get("objects").forEach(o -> statuses.add(o.get("directory").asText() + " " + o.get("status").asText()));
            assertEquals(List.of("cluster1 damaged", "cluster1 ok", "cluster2 ok"), statuses, doc::toPrettyString);
            assertTrue(doc.get("objects").get(0).get("problem").asText().startsWith("chunk "), doc::toPrettyString);

            // The damage is in A's chunks only: another backup still restores, and the plugin's restore agrees.
            StoreAdmin.Result other = admin.run("verify", "--backup", T2);
            assertEquals(0, other.exit(), other::toString);
            plugin.run("restore_data", cluster1.toString(), key(0, T1)).assertFailed();
        } finally {
            store.close();
            HostAgents.kill(agentDir);
        }
    }

    private Path pluginConfig(StoreProcess store, String directory) throws IOException {
        StringBuilder yaml = new StringBuilder("executablepath: " + Dist.executable(DedupFixture.EXECUTABLE) + "\noptions:\n");
        store.demoOptions(directory).forEach((k, v) -> yaml.append("  ").append(k).append(": \"").append(v).append("\"\n"));
        yaml.append("  log_directory: ").append(dir.resolve("logs")).append('\n');
        return Files.writeString(dir.resolve(directory + ".yaml"), yaml);
    }

    private static void backUp(PluginShell plugin, Path config, String key, byte[] data) {
        plugin.run(new ByteArrayInputStream(data), "backup_data", config.toString(), key).assertSucceeded();
    }

    private static String key(int segment, String ts) {
        return "/data/gpseg" + segment + "/backups/" + ts.substring(0, 8) + "/" + ts + "/gpbackup_" + segment + "_" + ts + "_1";
    }

    private static String last(String text) {
        List<String> lines = text.lines().toList();
        return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    /** The directory S3Proxy keeps the store's bucket in, named by the store's config. */
    private static Path bucketDirectory(Path home) throws IOException {
        String bucket = Files.readAllLines(home.resolve(".gpdedup/store.yaml")).stream().map(String::strip)
                .filter(l -> l.startsWith("bucket: ")).findFirst().orElseThrow().substring("bucket: ".length());
        return S3Server.shared().bucketDirectory(bucket);
    }

    /**
     * Changes one byte of the chunk record holding {@code data}'s middle, in whichever container
     * file under {@code root} has it: found by its bytes, as the chunk is stored raw. With
     * {@code fixCrc} the record's CRC-32C is written again to match (docs/format.md 2.2).
     */
    private static void damageChunkOf(Path root, byte[] data, boolean fixCrc) throws IOException {
        byte[] needle = Arrays.copyOfRange(data, data.length / 2, data.length / 2 + 64);
        List<Path> containers;
        try (Stream<Path> files = Files.walk(root)) {
            containers = files.filter(f -> Files.isRegularFile(f) && f.toString().contains("containers")).toList();
        }
        for (Path file : containers) {
            byte[] bytes = Files.readAllBytes(file);
            int at = indexOf(bytes, needle);
            if (at < 0) {
                continue;
            }
            Damage.flipByte(file, at);
            if (fixCrc) {
                int record = lastIndexOf(bytes, "CHK1".getBytes(StandardCharsets.US_ASCII), at);
                assertTrue(record >= 0, "no record magic before the chunk's bytes in " + file);
                int stored = ByteBuffer.wrap(bytes, record + 41, 4).getInt();
                bytes[at] ^= 0x01;
                CRC32C crc = new CRC32C();
                crc.update(bytes, record, 45 + stored);
                try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
                    f.seek(record + 45L + stored);
                    f.writeInt((int) crc.getValue());
                }
            }
            return;
        }
        throw new AssertionError("no container under " + root + " holds the chunk's bytes (" + containers + ")");
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        for (int i = 0; i <= hay.length - needle.length; i++) {
            if (Arrays.equals(hay, i, i + needle.length, needle, 0, needle.length)) {
                return i;
            }
        }
        return -1;
    }

    private static int lastIndexOf(byte[] hay, byte[] needle, int before) {
        for (int i = before - needle.length; i >= 0; i--) {
            if (Arrays.equals(hay, i, i + needle.length, needle, 0, needle.length)) {
                return i;
            }
        }
        return -1;
    }
}
