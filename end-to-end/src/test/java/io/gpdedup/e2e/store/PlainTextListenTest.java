package io.gpdedup.e2e.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.store.tls.SelfSignedCertificate;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code dist/bin/gpdedup-store serve} on an address beyond loopback without TLS: refused with one
 * line saying how to turn TLS on or accept plain text, exit 2, nothing made on disk. With
 * {@code tls-required: false}, or with a certificate, or on loopback, the same config serves.
 */
@Timeout(180)
class PlainTextListenTest {
    private static final String HASH = PasswordHash.create("a-long-password".toCharArray(), 1_000).encoded();

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0", "'::'"})
    void beyondLoopbackWithoutTlsIsRefusedInOneLine(String address) throws Exception {
        Path data = dir.resolve("data");
        Path config = config("listen-address: " + address + "\n");
        Run run = serve(config);
        assertEquals(2, run.exit, run.stderr);
        List<String> lines = run.stderr.lines().toList();
        assertEquals(1, lines.size(), run.stderr);
        String line = lines.get(0);
        assertTrue(line.startsWith("gpdedup-store: config " + config + ": listen-address ")
                && line.contains("tls-cert and tls-key") && line.contains("tls-required: false") && line.contains("docs/store.md"), line);
        assertFalse(line.contains("Exception"), line);
        assertFalse(Files.exists(data), "nothing made on disk");
    }

    @Test
    void tlsRequiredFalseIsTheExplicitOptOut() throws Exception {
        assertServes(config("listen-address: 0.0.0.0\ntls-required: false\n"));
    }

    @Test
    void aCertificateOrLoopbackNeedsNoOptOut() throws Exception {
        SelfSignedCertificate cert = SelfSignedCertificate.generate(dir.resolve("tls"));
        assertServes(config("listen-address: 0.0.0.0\ntls-cert: " + cert.certFile() + "\ntls-key: " + cert.keyFile() + "\n"));
        assertServes(config("listen-address: localhost\n"));
    }

    private Path config(String lines) throws IOException {
        return Files.writeString(dir.resolve("store.yaml"), lines + "data-dir: " + dir.resolve("data") + "\nport: 0\nunits:\n  "
                + StoreProcess.UNIT + ":\n    users:\n      " + StoreProcess.USER + ": " + HASH + "\n");
    }

    private record Run(int exit, String stderr) {
    }

    private Run serve(Path config) throws IOException, InterruptedException {
        Path err = dir.resolve("serve.err");
        ProcessBuilder pb = new ProcessBuilder(Dist.executable("gpdedup-store").toString(), "serve", "--config", config.toString(),
                "--metrics-port", "-1");
        pb.environment().put("HOME", Files.createDirectories(dir.resolve("home")).toString());
        pb.redirectError(err.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError("serve did not exit: " + Files.readString(err));
        }
        return new Run(p.exitValue(), Files.readString(err, StandardCharsets.UTF_8));
    }

    /** Starts the store on {@code config}, waits until it listens (its port file), and stops it. */
    private void assertServes(Path config) throws IOException, InterruptedException {
        Path home = Files.createDirectories(dir.resolve("home"));
        ProcessBuilder pb = new ProcessBuilder(Dist.executable("gpdedup-store").toString(), "serve", "--config", config.toString(),
                "--metrics-port", "-1");
        pb.environment().put("HOME", home.toString());
        pb.redirectError(ProcessBuilder.Redirect.appendTo(home.resolve("store.err").toFile()));
        io.gpdedup.tooling.StoreLauncher.Started s = io.gpdedup.tooling.StoreLauncher.start(pb, home.resolve("store.port"),
                java.time.Duration.ofSeconds(60), home.resolve("store.err"));
        s.process().destroy();
        assertEquals(0, s.process().waitFor(), "a clean stop");
    }
}
