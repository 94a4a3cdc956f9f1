package io.gpdedup.bench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.appliance.ApplianceProfile;
import io.gpdedup.bench.BenchRun;
import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.ClientTls;
import io.gpdedup.client.StoreClient;
import io.gpdedup.store.tls.SelfSignedCertificate;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code connchk} and {@code calibrate} against a real gpdedup-store: a store process of this
 * test's class path on 127.0.0.1 (plain TCP, and a second one that requires TLS), no appliance
 * profile, a user with a random password read from a file, as an operator would run them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class RealStoreTest {
    private static final Pattern ROW = Pattern.compile("^\\s*(\\d+)\\s+(\\d+\\.\\d)\\s+(\\d+\\.\\d)\\s+.*SHA-256 ok$", Pattern.MULTILINE);

    private Path dir;
    private LiveStore store;
    private LiveStore tlsStore;
    private SelfSignedCertificate cert;
    private Path password;
    private Path tlsPassword;

    @BeforeAll
    void startStores(@TempDir Path tmp) throws IOException {
        dir = tmp;
        List<String> java = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"), "io.gpdedup.store.cli.StoreMain");
        store = LiveStore.start(java, dir.resolve("store"), null, List.of());
        password = Files.writeString(dir.resolve("password"), store.password() + "\n");
        cert = SelfSignedCertificate.generate(dir.resolve("tls"));
        tlsStore = LiveStore.start(java, dir.resolve("tls-store"), null,
                List.of("tls-cert: " + cert.certFile(), "tls-key: " + cert.keyFile(), "tls-required: true"));
        tlsPassword = Files.writeString(dir.resolve("tls-password"), tlsStore.password() + "\n");
    }

    @AfterAll
    void stopStores() {
        for (LiveStore s : new LiveStore[] {store, tlsStore}) {
            if (s != null) {
                s.close();
            }
        }
    }

    /** {@code command} against {@code s} with the password in {@code passwordFile}, then {@code more}. */
    private String[] target(String command, LiveStore s, Path passwordFile, String... more) {
        List<String> args = new ArrayList<>(List.of(command, "--host", "127.0.0.1", "--port", String.valueOf(s.port()), "--unit", LiveStore.UNIT,
                "--user", LiveStore.USER, "--password-file", passwordFile.toString(), "--quiet"));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    @Test
    void connchkWritesReadsBackVerifiedAndDeletesWhatItWrote() throws IOException {
        BenchRun run = BenchRun.of(target("connchk", store, password, "--threads", "1,2", "--size", "8MiB", "--out", dir.resolve("out").toString()));
        assertEquals(0, run.exit(), run.toString());
        Matcher m = ROW.matcher(run.out());
        List<Integer> threads = new ArrayList<>();
        while (m.find()) {
            threads.add(Integer.parseInt(m.group(1)));
            assertTrue(Double.parseDouble(m.group(2)) > 0 && Double.parseDouble(m.group(3)) > 0, "write and read MB/s: " + m.group());
        }
        assertEquals(List.of(1, 2), threads, run.out());
        assertTrue(run.out().contains("the dedup plugin's pipeline"), run.out());
        Matcher deleted = Pattern.compile("deleted the 3 objects \\(24\\.00 MiB\\) it wrote under (gpdedup-bench/connchk-[0-9a-f]+/)")
                .matcher(run.out());
        assertTrue(deleted.find(), run.out());
        try (StoreClient c = StoreClient.connect(store.settings())) {
            assertEquals(List.of(), c.list(deleted.group(1)), "what connchk wrote is gone");
            assertEquals(0, c.stats().objects());
        }
        assertTrue(Files.size(dir.resolve("out").resolve("connchk.png")) > 1000);
        assertTrue(Files.readString(dir.resolve("out").resolve("connchk.csv")).startsWith("threads,write MB/s,read MB/s"));
    }

    @Test
    void connchkSpeaksTlsAsThePluginDoes() {
        BenchRun tls = BenchRun.of(target("connchk", tlsStore, tlsPassword, "--threads", "1", "--size", "4MiB", "--tls", "--tls-ca-file",
                cert.certFile().toString()));
        assertEquals(0, tls.exit(), tls.toString());
        assertTrue(tls.out().contains("over TLS"), tls.out());
        BenchRun plain = BenchRun.of(target("connchk", tlsStore, tlsPassword, "--threads", "1", "--size", "4MiB"));
        assertEquals(1, plain.exit(), plain.toString());
        assertOneLine(plain, "requires TLS");
        BenchRun caWithoutTls = BenchRun.of(target("connchk", tlsStore, tlsPassword, "--tls-ca-file", cert.certFile().toString()));
        assertEquals(2, caWithoutTls.exit(), caWithoutTls.toString());
        assertOneLine(caWithoutTls, "--tls-ca-file is set but --tls is not");
        try (StoreClient c = StoreClient.connect(ClientSettings.of("127.0.0.1", tlsStore.port(), LiveStore.UNIT, LiveStore.USER,
                tlsStore.password()).withTls(ClientTls.trusting(cert.certFile())))) {
            assertEquals(0, c.stats().objects());
        }
    }

    @Test
    void aWrongPasswordOrAMissingPasswordFileIsOneLineNamingIt() throws IOException {
        Path wrong = Files.writeString(dir.resolve("wrong-password"), "not-the-password\n");
        BenchRun refused = BenchRun.of(target("connchk", store, wrong, "--threads", "1", "--size", "1MiB"));
        assertEquals(1, refused.exit(), refused.toString());
        assertOneLine(refused, "--password-file " + wrong);
        Path missing = dir.resolve("no-such-file");
        for (String command : List.of("connchk", "calibrate")) {
            BenchRun absent = BenchRun.of(target(command, store, missing));
            assertEquals(2, absent.exit(), absent.toString());
            assertOneLine(absent, "cannot read --password-file " + missing + ": no such file");
        }
        BenchRun noOption = BenchRun.of("connchk", "--host", "127.0.0.1", "--port", String.valueOf(store.port()), "--unit", LiveStore.UNIT, "--user",
                LiveStore.USER);
        assertEquals(2, noOption.exit(), noOption.toString());
        assertOneLine(noOption, "--password-file is required with --host");
        BenchRun simulatedOption = BenchRun.of(target("connchk", store, password, "--scale", "0.1"));
        assertEquals(2, simulatedOption.exit(), simulatedOption.toString());
        assertOneLine(simulatedOption, "--scale is for the simulated appliance");
        assertFalse(refused.out().contains("deleted"), "nothing was written, so nothing is said to be deleted");
    }

    @Test
    void aListenerThatNeverAnswersFailsAfterTheConnectTimeout() throws IOException {
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            BenchRun r = BenchRun.of("connchk", "--host", "127.0.0.1", "--port", String.valueOf(silent.getLocalPort()), "--unit", LiveStore.UNIT,
                    "--user", LiveStore.USER, "--password-file", password.toString(), "--threads", "1", "--size", "1MiB");
            assertEquals(1, r.exit(), r.toString());
            assertOneLine(r, "did not answer the handshake within 10 s");
        }
    }

    @Test
    void calibrateWritesAProfileTheModelUses() throws IOException {
        Path profile = dir.resolve("mystore.yaml");
        BenchRun run = BenchRun.of(target("calibrate", store, password, "--threads", "1,2", "--size", "8MiB", "--files", "20", "--name", "mystore",
                "--write-profile", profile.toString()));
        assertEquals(0, run.exit(), run.toString());
        ApplianceProfile p = ApplianceProfile.load(profile);
        assertEquals("mystore", p.name());
        assertEquals(1.0, p.scale());
        assertTrue(p.writeRawMBps() > 0 && p.readRawMBps() > 0 && p.clientCostMsPerMB() > 0 && p.namespaceOpCost().toNanos() > 0, p.toString());
        assertTrue(Files.readString(profile).startsWith("# gpdedup-store at 127.0.0.1:" + store.port()), "the profile says where it came from");
        assertTrue(run.out().contains("wrote the profile of your store (127.0.0.1, unit " + LiveStore.UNIT + ") to " + profile), run.out());
        // two thread counts of 8 MiB: too few and too short to trust, said once by calibrate and again by each model run
        assertTrue(run.err().contains("too brief to trust"), run.toString());
        Matcher deleted = Pattern.compile("deleted the (\\d+) objects .* under (gpdedup-bench/connchk-[0-9a-f]+/)").matcher(run.out());
        assertTrue(deleted.find(), run.out());
        // 1 and 2 threads written twice (unique, then again as duplicates), and 10 + 2 x 10 small objects
        assertEquals(2 * 3 + 30, Integer.parseInt(deleted.group(1)), run.out());
        try (StoreClient c = StoreClient.connect(store.settings())) {
            assertEquals(0, c.stats().objects(), "what calibrate wrote is gone");
        }
        BenchRun model = BenchRun.of("model", "--profile", profile.toString(), "--hosts", "2", "--segments-per-host", "2", "--tables", "200", "--data",
                "1GiB", "--out", dir.resolve("whatif").toString());
        assertEquals(0, model.exit(), model.toString());
        assertTrue(model.out().contains("profile: your store, calibrated " + java.time.LocalDate.now() + " on 127.0.0.1 (unit "
                + LiveStore.UNIT + "), " + profile), model.out());
        assertOneLine(model, "too brief to trust (2 thread counts");
        assertTrue(Files.exists(dir.resolve("whatif").resolve("whatif.png")));
    }

    private static void assertOneLine(BenchRun run, String expected) {
        List<String> lines = run.err().strip().lines().toList();
        assertEquals(1, lines.size(), run.toString());
        assertTrue(lines.get(0).contains(expected), "expected '" + expected + "' in: " + lines.get(0));
        assertFalse(lines.get(0).contains("Exception"), lines.get(0));
    }
}
