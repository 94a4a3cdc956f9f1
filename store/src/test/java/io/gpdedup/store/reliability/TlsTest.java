package io.gpdedup.store.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.ClientTls;
import io.gpdedup.client.StoreClient;
import io.gpdedup.client.StoreClientException;
import io.gpdedup.client.StoreConnectException;
import io.gpdedup.client.StoreServerException;
import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.store.net.StoreFixture;
import io.gpdedup.store.tls.SelfSignedCertificate;
import io.gpdedup.store.tls.TlsSettings;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class TlsTest {
    @TempDir
    static Path certDir;
    static SelfSignedCertificate cert;
    static SelfSignedCertificate otherCert;

    @BeforeAll
    static void certificates() throws IOException {
        cert = SelfSignedCertificate.generate(certDir.resolve("server"));
        otherCert = SelfSignedCertificate.generate(certDir.resolve("other"));
    }

    private static StoreFixture start(Path dir, boolean required) {
        return StoreFixture.start(dir, c -> c.withTls(new TlsSettings(cert.certFile(), cert.keyFile(), required)), e -> e);
    }

    @Test
    void tlsClientRoundTripsAnObject(@TempDir Path dir) {
        try (StoreFixture store = start(dir, true);
                StoreClient client = StoreClient.connect(store.settingsA().withTls(ClientTls.trusting(cert.certFile())))) {
            byte[] data = ObjectIo.random(1, 300_000);
            ObjectIo.write(client, "tls/one", data, 64 * 1024);
            assertArrayEquals(data, ObjectIo.read(client, "tls/one"));
        }
    }

    @Test
    void plainClientIsRefusedWithAClearMessageWhenTlsIsRequired(@TempDir Path dir) {
        try (StoreFixture store = start(dir, true)) {
            StoreServerException e = assertThrows(StoreServerException.class, () -> StoreClient.connect(store.settingsA()));
            assertEquals(ErrorCode.PROTOCOL_VIOLATION, e.code());
            assertTrue(e.getMessage().contains("requires TLS"), e.getMessage());
        }
    }

    @Test
    void plainBytesNeverReachTheProtocolWhenTlsIsRequired(@TempDir Path dir) throws IOException {
        try (StoreFixture store = start(dir, true); Socket s = new Socket("127.0.0.1", store.port())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            // A PING before any handshake: with TLS off this would be a protocol violation, here it is refused before.
            out.write(new byte[] {0, 0, 0, 6, 0x10, 0, 0, 0, 0, 7});
            InputStream in = s.getInputStream();
            byte[] all = in.readAllBytes(); // the server closes after its one refusal
            assertTrue(all.length > 10 && (all[4] & 0xFF) == 0xFF, "expected one ERROR frame then close, got " + all.length + " bytes");
        }
    }

    @Test
    void clientTrustingAnotherCertificateFailsTheHandshake(@TempDir Path dir) {
        try (StoreFixture store = start(dir, true)) {
            ClientSettings wrongTrust = store.settingsA().withTls(ClientTls.trusting(otherCert.certFile()));
            StoreConnectException e = assertThrows(StoreConnectException.class, () -> StoreClient.connect(wrongTrust));
            assertTrue(e.getMessage().contains("TLS handshake"), e.getMessage());
        }
    }

    @Test
    void tlsClientAgainstAPlainServerFailsClearly(@TempDir Path dir) {
        try (StoreFixture store = StoreFixture.start(dir)) {
            ClientSettings tls = store.settingsA().withTls(ClientTls.trusting(cert.certFile()));
            assertThrows(StoreClientException.class, () -> StoreClient.connect(tls));
        }
    }

    @Test
    void optionalTlsAcceptsBothOnOnePort(@TempDir Path dir) {
        try (StoreFixture store = start(dir, false)) {
            byte[] data = ObjectIo.random(2, 100_000);
            try (StoreClient tls = StoreClient.connect(store.settingsA().withTls(ClientTls.trusting(cert.certFile())))) {
                ObjectIo.write(tls, "mixed/a", data, 16 * 1024);
            }
            try (StoreClient plain = StoreClient.connect(store.settingsA())) {
                assertArrayEquals(data, ObjectIo.read(plain, "mixed/a"));
            }
        }
    }

    @Test
    void missingCaFileIsAClearError(@TempDir Path dir) {
        try (StoreFixture store = start(dir, true)) {
            Path missing = dir.resolve("no-such-ca.pem");
            StoreConnectException e = assertThrows(StoreConnectException.class,
                    () -> StoreClient.connect(store.settingsA().withTls(ClientTls.trusting(missing))));
            assertTrue(e.getMessage().contains("no-such-ca.pem"), e.getMessage());
        }
    }

    @Test
    void unreadableKeyStopsTheStart(@TempDir Path dir) throws IOException {
        Path badKey = dir.resolve("bad-key.pem");
        Files.writeString(badKey, "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
        Path data = dir.resolve("data");
        RuntimeException e = assertThrows(RuntimeException.class, () -> StoreFixture.start(data,
                c -> c.withTls(new TlsSettings(cert.certFile(), badKey, true)), x -> x).close());
        assertTrue(String.valueOf(e.getMessage()).contains("bad-key.pem"), String.valueOf(e.getMessage()));
    }
}
