package io.gpdedup.e2e.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.HostAgents;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.e2e.shell.CallResult;
import io.gpdedup.e2e.shell.PluginShell;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Secrets never reach a log, through the real executables of {@code dist/}: a store with its own
 * user (hash made by {@code gpdedup-store hash-password}), the plugin with
 * {@code password_encryption: "on"} (value made by {@code encrypt_password} from a {@code .encrypt}
 * file), then a backup and a restore, failed logins (wrong password in plain text, wrong password
 * encrypted, wrong {@code .encrypt} key), the admin commands with a right and a wrong password file,
 * store configs broken on the line that holds the hash, replication to a second store (the cleanup
 * hook hands the store an encrypted {@code remote_password}, then a wrong one), and a scrape of
 * {@code /metrics}. Afterwards no file the run left (plugin log, host agent log, both stores' stderr,
 * every captured stdout and stderr, the replication status, the metrics page) may hold any secret,
 * or any 12 characters of one. Only the inputs that must hold them (configs, the {@code .encrypt}
 * file, password files) and the stores' data directories (the replication queue, mode 0600) are
 * left out.
 */
@Timeout(600)
class SecretsNeverLoggedTest {
    /** Long enough that a chance match in a log is impossible for random hex or base64, short enough to catch a cut-off echo. */
    private static final int WINDOW = 12;
    private static final Pattern COUNTER = Pattern.compile("(?m)^(gpdedup_store_\\w+) (\\d+(?:\\.\\d+)?)$");

    @TempDir
    Path dir;

    private Path transcripts;
    private int transcriptCount;

    private record Secret(String name, String value) {
    }

    private record Exec(int exit, String stdout, String stderr) {
    }

    @Test
    void noSecretReachesALogStderrOrTheMetrics() throws Exception {
        // Fresh random secrets: none can appear anywhere by accident, and a leak of any part of one is unmistakable.
        String password = "pw-" + randomHex();
        String wrongPassword = "wrong-" + randomHex();
        String clusterKey = "key-" + randomHex();
        String otherClusterKey = "otherkey-" + randomHex();
        String remotePassword = "rpw-" + randomHex();
        String wrongRemotePassword = "rwrong-" + randomHex();

        Path storeHome = dir.resolve("store-home");
        Path storeConfig = storeHome.resolve(".gpdedup").resolve("store.yaml");
        Path secrets = Files.createDirectories(dir.resolve("secrets"));
        Path agentDir = dir.resolve("agent");
        Path logs = dir.resolve("logs");
        transcripts = Files.createDirectories(dir.resolve("transcripts"));
        PluginShell plugin = new PluginShell(Dist.executable("gpbackup_dedup_plugin"), Files.createDirectories(dir.resolve("cwd")),
                Files.createDirectories(dir.resolve("home")), Map.of("GPDEDUP_AGENT_DIR", agentDir.toString()));

        Exec hashed = store(storeHome, password + "\n", "hash-password");
        assertEquals(0, hashed.exit(), hashed.stderr());
        String hash = hashed.stdout().strip();
        String[] hashParts = hash.split("\\$");
        assertEquals(4, hashParts.length, hash);
        Files.createDirectories(storeConfig.getParent());
        int remotePort = freePort();
        String storeYaml = "metrics-port: 0\ndata-dir: data\nunits:\n  vault:\n    users:\n      keeper: " + hash + "\n"
                + "replication-targets:\n  dr:\n    host: 127.0.0.1\n    port: " + remotePort + "\n    tls: false\n";
        Files.writeString(storeConfig, storeYaml);

        Path encryptFile = secrets.resolve(".encrypt");
        Files.writeString(encryptFile, "gpbackup_dedup_plugin: " + clusterKey + "\n");
        String encrypted;
        String wrongEncrypted;
        String remoteEncrypted;
        Path remoteHome = dir.resolve("remote-home");
        StoreProcess remote = null;
        StoreProcess store = StoreProcess.start(storeHome, List.of("--port", "0"));
        try {
            Map<String, String> base = new LinkedHashMap<>();
            base.put("hostname", "127.0.0.1");
            base.put("port", "\"" + store.port() + "\"");
            base.put("username", "keeper");
            base.put("password", "placeholder");
            base.put("storage_unit", "vault");
            base.put("directory", "cluster1");
            base.put("log_directory", logs.toString());
            Path forEncrypting = pluginConfig(secrets, "encrypt", base, Map.of());
            encrypted = encrypt(plugin, forEncrypting, encryptFile, password);
            wrongEncrypted = encrypt(plugin, forEncrypting, encryptFile, wrongPassword);
            Path good = pluginConfig(secrets, "good", base, Map.of("password", encrypted, "password_encryption", "\"on\"",
                    "gpbackup_dedup_plugin", clusterKey));
            Path wrongPlain = pluginConfig(secrets, "wrong-plain", base, Map.of("password", wrongPassword));
            Path wrongEnc = pluginConfig(secrets, "wrong-encrypted", base, Map.of("password", wrongEncrypted, "password_encryption", "\"on\"",
                    "gpbackup_dedup_plugin", clusterKey));
            Path wrongKey = pluginConfig(secrets, "wrong-key", base, Map.of("password", encrypted, "password_encryption", "\"on\"",
                    "gpbackup_dedup_plugin", otherClusterKey));

            String key = "/data/gpseg0/backups/20261123/20261123120000/gpbackup_0_20261123120000_16384";
            byte[] data = SeededBytes.array(7, 2_000_000);
            keep("backup_data", plugin.run(new ByteArrayInputStream(data), "backup_data", good.toString(), key).assertSucceeded());
            CallResult restored = plugin.run("restore_data", good.toString(), key).assertSucceeded();
            assertArrayEquals(data, restored.stdout(), "restore through password_encryption");
            keep("restore_data", restored.stderr());
            CallResult refusedPlain = plugin.run(new ByteArrayInputStream(data), "backup_data", wrongPlain.toString(), key + "1").assertFailed();
            assertTrue(refusedPlain.stderr().contains("refused user 'keeper'"), refusedPlain.toString());
            keep("backup_data wrong password", refusedPlain);
            CallResult refusedEnc = plugin.run("restore_data", wrongEnc.toString(), key).assertFailed();
            assertTrue(refusedEnc.stderr().contains("refused user 'keeper'"), refusedEnc.toString());
            keep("restore_data wrong encrypted password", refusedEnc);
            CallResult undecryptable = plugin.run("restore_data", wrongKey.toString(), key).assertFailed();
            assertTrue(undecryptable.stderr().contains("not encrypted with this cluster's .encrypt key"), undecryptable.toString());
            keep("restore_data wrong .encrypt key", undecryptable);
            List<String> admin = List.of("--port", String.valueOf(store.port()), "--unit", "vault", "--user", "keeper", "--password-file");

            // Replication: the cleanup hook hands the remote password to the store, which keeps it in its
            // queue and logs in to the remote store with it; a wrong one fails there and is retried.
            Exec remoteHashed = store(remoteHome, remotePassword + "\n", "hash-password");
            assertEquals(0, remoteHashed.exit(), remoteHashed.stderr());
            Files.createDirectories(remoteHome.resolve(".gpdedup"));
            Files.writeString(remoteHome.resolve(".gpdedup/store.yaml"), "data-dir: data\nunits:\n  dr:\n    users:\n      dr-keeper: "
                    + remoteHashed.stdout().strip() + "\n");
            remote = StoreProcess.start(remoteHome, List.of("--port", String.valueOf(remotePort), "--metrics-port", "-1"));
            remoteEncrypted = encrypt(plugin, forEncrypting, encryptFile, remotePassword);
            Map<String, String> replicating = new LinkedHashMap<>(Map.of("password", encrypted, "password_encryption", "\"on\"",
                    "gpbackup_dedup_plugin", clusterKey, "replication", "\"on\"", "remote_hostname", "127.0.0.1",
                    "remote_port", "\"" + remote.port() + "\"", "remote_username", "dr-keeper", "remote_password", remoteEncrypted,
                    "remote_password_encryption", "\"on\""));
            replicating.put("remote_storage_unit", "dr");
            Path replicated = pluginConfig(secrets, "replicated", base, replicating);
            replicating.put("remote_password", wrongRemotePassword);
            replicating.put("remote_password_encryption", "\"off\"");
            Path wrongRemote = pluginConfig(secrets, "wrong-remote", base, replicating);
            Path backupDir = Files.createDirectories(dir.resolve("cluster/seg-1/backups/20261123/20261123120000"));
            Path report = Files.writeString(backupDir.resolve("gpbackup_20261123120000_report"), "backup status:         Success\n");
            keep("backup_file report", plugin.run("backup_file", replicated.toString(), report.toString()).assertSucceeded());
            keep("cleanup queues", plugin.run("cleanup_plugin_for_backup", replicated.toString(), backupDir.toString(), "master",
                    "\\\"-1\\\"").assertSucceeded());
            keep("replication done", awaitJob(storeHome, admin, goodPasswordFile(secrets, password), "\"state\" : \"done\""));
            keep("cleanup queues with a wrong remote password", plugin.run("cleanup_plugin_for_backup", wrongRemote.toString(),
                    backupDir.toString(), "master", "\\\"-1\\\"").assertSucceeded());
            keep("replication refused", awaitJob(storeHome, admin, goodPasswordFile(secrets, password), "refused user 'dr-keeper'"));
            assertTrue(leaks(Files.readString(storeHome.resolve(".gpdedup/data/replication.json")),
                    List.of(new Secret("wrong remote password", wrongRemotePassword))).contains("wrong remote password"),
                    "the detector finds the password a waiting job keeps in the store's queue");

            Path goodPasswordFile = goodPasswordFile(secrets, password);
            Path wrongPasswordFile = Files.writeString(secrets.resolve("wrong-password"), wrongPassword + "\n");
            Exec stat = store(storeHome, "", concat(List.of("stat"), admin, List.of(goodPasswordFile.toString())));
            assertEquals(0, stat.exit(), stat.stderr());
            keep("stat", stat);
            Exec refusedAdmin = store(storeHome, "", concat(List.of("list"), admin, List.of(wrongPasswordFile.toString())));
            assertEquals(1, refusedAdmin.exit(), refusedAdmin.toString());
            keep("list wrong password", refusedAdmin);

            // Typos an operator makes on the users line: the parser's error must not quote the line.
            String usersLine = "      keeper: " + hash;
            Map<String, String> broken = Map.of(
                    "unterminated-quote", storeYaml.replace(usersLine, "      keeper: \"" + hash),
                    "unterminated-list", storeYaml.replace(usersLine, "      keeper: [" + hash),
                    "colon", storeYaml.replace(usersLine, usersLine + ": x"),
                    "hash-for-users", storeYaml.replace("    users:\n" + usersLine, "    users: " + hash));
            for (Map.Entry<String, String> b : broken.entrySet()) {
                Path bad = Files.writeString(secrets.resolve("store-" + b.getKey() + ".yaml"), b.getValue());
                Exec refused = store(storeHome, "", "serve", "--config", bad.toString(), "--port", "0", "--metrics-port", "-1");
                assertEquals(2, refused.exit(), b.getKey() + ": " + refused);
                assertTrue(refused.stderr().contains(bad + ", line "), b.getKey() + " names the file and line: " + refused.stderr());
                keep("serve " + b.getKey(), refused);
            }

            String metrics = store.metrics();
            keep("metrics", metrics);
            Map<String, Double> counters = counters(metrics);
            assertTrue(counters.getOrDefault("gpdedup_store_login_failures_total", 0.0) >= 3, "the failed logins reached the store: " + counters);
            assertTrue(counters.getOrDefault("gpdedup_store_commits_total", 0.0) >= 1, "the backup reached the store: " + counters);
        } finally {
            store.close();
            if (remote != null) {
                remote.close();
            }
            HostAgents.kill(agentDir);
        }

        List<Secret> toFind = List.of(new Secret("password", password), new Secret("wrong password", wrongPassword),
                new Secret(".encrypt key", clusterKey), new Secret("other .encrypt key", otherClusterKey),
                new Secret("password hash salt", hashParts[2]), new Secret("password hash", hashParts[3]),
                new Secret("encrypted password", encrypted), new Secret("encrypted wrong password", wrongEncrypted),
                new Secret("remote password", remotePassword), new Secret("wrong remote password", wrongRemotePassword),
                new Secret("encrypted remote password", remoteEncrypted));

        // The detector must see what it looks for, or a clean scan proves nothing.
        assertTrue(leaks(Files.readString(storeConfig), toFind).contains("password hash"), "the detector finds the hash in store.yaml");
        assertTrue(leaks(Files.readString(secrets.resolve("good.yaml")), toFind).contains("encrypted password"),
                "the detector finds the encrypted password");

        Path plugLog;
        try (Stream<Path> s = Files.list(logs)) {
            plugLog = s.filter(p -> p.getFileName().toString().startsWith("gpbackup_dedup_plugin_")).findFirst()
                    .orElseThrow(() -> new AssertionError("no plugin log in " + logs));
        }
        assertTrue(Files.readString(plugLog).contains("refused user 'keeper'"), "the plugin log holds the failed logins");
        assertTrue(Files.readString(storeHome.resolve("store.err")).contains("login failed: user 'keeper' unit 'vault'"),
                "the store's stderr holds the failed logins");
        assertTrue(Files.readString(storeHome.resolve("store.err")).contains("refused user 'dr-keeper'"),
                "the store's stderr holds the failed replication");
        try (Stream<Path> s = Files.list(agentDir)) {
            assertTrue(s.anyMatch(p -> p.getFileName().toString().endsWith(".log")), "the host agent kept a log");
        }

        Path storeData = storeHome.resolve(".gpdedup");
        Path remoteData = remoteHome.resolve(".gpdedup");
        List<String> found = new ArrayList<>();
        long files = 0;
        long bytes = 0;
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                if (!Files.isRegularFile(p) || p.startsWith(secrets) || p.startsWith(storeData) || p.startsWith(remoteData)) {
                    continue;
                }
                String text = new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1);
                files++;
                bytes += text.length();
                for (String leak : leaks(text, toFind)) {
                    found.add(dir.relativize(p) + ": " + leak);
                }
            }
        }
        System.out.printf("secrets scan: %d secrets, %d files, %d bytes (plugin and agent logs, store stderr, %d captured outputs, /metrics), leaks: %d%n",
                toFind.size(), files, bytes, transcriptCount, found.size());
        assertEquals(List.of(), found, "secrets in logs");
    }

    private static Path goodPasswordFile(Path secrets, String password) throws IOException {
        return Files.writeString(secrets.resolve("password"), password + "\n");
    }

    /** Polls {@code gpdedup-store replication --json} until its output contains {@code wanted}; returns that output. */
    private Exec awaitJob(Path storeHome, List<String> admin, Path passwordFile, String wanted) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        Exec last = null;
        while (System.nanoTime() < deadline) {
            last = store(storeHome, "", concat(List.of("replication", "--json"), admin, List.of(passwordFile.toString())));
            assertEquals(0, last.exit(), last.toString());
            if (last.stdout().contains(wanted)) {
                return last;
            }
            Thread.sleep(250);
        }
        throw new AssertionError("the replication status never showed " + wanted + ": " + last);
    }

    private static String randomHex() {
        byte[] b = new byte[12];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /** Names of the secrets of which {@code text} holds {@value #WINDOW} consecutive characters. */
    private static List<String> leaks(String text, List<Secret> secrets) {
        List<String> found = new ArrayList<>();
        for (Secret s : secrets) {
            int w = Math.min(WINDOW, s.value().length());
            for (int i = 0; i + w <= s.value().length(); i++) {
                if (text.contains(s.value().substring(i, i + w))) {
                    found.add(s.name());
                    break;
                }
            }
        }
        return found;
    }

    private String encrypt(PluginShell plugin, Path config, Path encryptFile, String password) throws IOException {
        CallResult r = plugin.run(new ByteArrayInputStream((password + "\n").getBytes(StandardCharsets.UTF_8)), "encrypt_password",
                config.toString(), encryptFile.toString()).assertSucceeded();
        keep("encrypt_password", r.stderr());
        return r.stdoutText().strip();
    }

    private static Path pluginConfig(Path dir, String name, Map<String, String> base, Map<String, String> changes) throws IOException {
        Map<String, String> options = new LinkedHashMap<>(base);
        options.putAll(changes);
        StringBuilder yaml = new StringBuilder("executablepath: " + Dist.executable("gpbackup_dedup_plugin") + "\noptions:\n");
        options.forEach((k, v) -> yaml.append("  ").append(k).append(": ").append(v).append('\n'));
        return Files.writeString(dir.resolve(name + ".yaml"), yaml);
    }

    private static Map<String, Double> counters(String metrics) {
        Map<String, Double> m = new LinkedHashMap<>();
        Matcher matcher = COUNTER.matcher(metrics);
        while (matcher.find()) {
            m.put(matcher.group(1), Double.parseDouble(matcher.group(2)));
        }
        return m;
    }

    /** Everything a process said goes into the scan, as gpbackup's logs or a service journal would hold it. */
    private void keep(String what, Object output) throws IOException {
        String text = output instanceof CallResult r ? "stdout:\n" + (r.stdout() == null ? "" : r.stdoutText()) + "\nstderr:\n" + r.stderr()
                : output instanceof Exec e ? "stdout:\n" + e.stdout() + "\nstderr:\n" + e.stderr() : String.valueOf(output);
        Files.writeString(transcripts.resolve(String.format("%02d-%s.txt", transcriptCount++, what.replace(' ', '-'))), text);
    }

    private static List<String> concat(List<String> a, List<String> b, List<String> c) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        all.addAll(c);
        return all;
    }

    private Exec store(Path home, String stdin, String... args) throws Exception {
        return store(home, stdin, List.of(args));
    }

    /** {@code dist/bin/gpdedup-store} with HOME={@code home}, like an admin at a shell. */
    private Exec store(Path home, String stdin, List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Dist.executable("gpdedup-store").toString()));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("HOME", home.toString());
        Process p = pb.start();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> drain(p.getInputStream()));
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> drain(p.getErrorStream()));
        try (var in = p.getOutputStream()) {
            in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("gpdedup-store " + args + " hung");
        }
        return new Exec(p.exitValue(), out.join(), err.join());
    }

    private static String drain(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private static int freePort() throws IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
