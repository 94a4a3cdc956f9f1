package io.gpdedup.dedup.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.dedup.DedupPlugin;
import io.gpdedup.plugin.api.CommandDispatcher;
import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.store.config.StoreConfig;
import io.gpdedup.store.engine.DedupStoreEngine;
import io.gpdedup.store.net.StoreService;
import io.gpdedup.store.tls.SelfSignedCertificate;
import io.gpdedup.store.tls.TlsSettings;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The plugin's {@code tls} and {@code tls_ca_file} options against a store that requires TLS. */
@Timeout(60)
class TlsPluginTest {
    private static final String KEY = "/data/gpseg0/backups/20261123/20261123045500/gpbackup_0_20261123045500_16384";

    @TempDir
    Path dir;
    private StoreService store;
    private SelfSignedCertificate cert;

    private record Result(int status, byte[] out, String err) {
    }

    @BeforeEach
    void start() throws IOException {
        cert = SelfSignedCertificate.generate(dir.resolve("tls"));
        StoreConfig cfg = StoreConfig.defaults(dir.resolve("store"), Map.of("unit1", Map.of("backup", PasswordHash.create("s3cret".toCharArray(), 1_000))))
                .withPort(0).withTls(new TlsSettings(cert.certFile(), cert.keyFile(), true));
        store = StoreService.start(cfg, DedupStoreEngine.open(cfg.dataDir()));
    }

    @AfterEach
    void stop() {
        store.close();
    }

    private Path config(String extra) throws IOException {
        Path cfg = dir.resolve("20261123045500_dedup.yaml");
        Files.writeString(cfg, "executablepath: /opt/gpdedup/bin/gpbackup_dedup_plugin\noptions:\n"
                + "  hostname: 127.0.0.1\n  port: \"" + store.address().getPort() + "\"\n  username: backup\n  password: s3cret\n"
                + "  storage_unit: unit1\n  directory: prod/cluster1\n  log_directory: " + dir.resolve("logs") + "\n" + extra);
        return cfg;
    }

    private static Result run(InputStream stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = new CommandDispatcher(new DedupPlugin()).run(args, stdin, out, new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(status, out.toByteArray(), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void backupAndRestoreOverTls() throws IOException {
        Path cfg = config("  tls: \"on\"\n  tls_ca_file: " + cert.certFile() + "\n");
        byte[] data = new byte[2_000_000];
        new Random(7).nextBytes(data);
        Result b = run(new ByteArrayInputStream(data), "backup_data", cfg.toString(), KEY);
        assertEquals(0, b.status(), b.err());
        Result r = run(InputStream.nullInputStream(), "restore_data", cfg.toString(), KEY);
        assertEquals(0, r.status(), r.err());
        assertArrayEquals(data, r.out());
    }

    @Test
    void plainPluginIsRefusedAndSaysWhy() throws IOException {
        Result b = run(new ByteArrayInputStream(new byte[1000]), "backup_data", config("").toString(), KEY);
        assertNotEquals(0, b.status());
        assertTrue(b.err().contains("requires TLS"), b.err());
    }

    @Test
    void caFileWithoutTlsIsAConfigError() throws IOException {
        Result b = run(new ByteArrayInputStream(new byte[10]), "backup_data", config("  tls_ca_file: " + cert.certFile() + "\n").toString(), KEY);
        assertNotEquals(0, b.status());
        assertTrue(b.err().contains("tls_ca_file"), b.err());
    }

    @Test
    void untrustedServerCertificateFailsTheBackup() throws IOException {
        Result b = run(new ByteArrayInputStream(new byte[1000]), "backup_data", config("  tls: \"on\"\n").toString(), KEY);
        assertNotEquals(0, b.status());
        assertTrue(b.err().contains("TLS handshake"), b.err());
    }
}
