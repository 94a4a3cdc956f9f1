package io.gpdedup.store.tls;

import io.gpdedup.store.container.OwnerOnly;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Makes a self-signed certificate and its key as PEM files with the JDK's own {@code keytool}
 * (no BouncyCastle): for tests and for trying TLS on a lab store. Production stores should use
 * certificates from the site's CA.
 *
 * @param certFile PEM certificate; give it to clients as their {@code tls_ca_file}
 * @param keyFile PEM PKCS#8 private key for the server's {@code tls-key}
 */
public record SelfSignedCertificate(Path certFile, Path keyFile) {
    private static final char[] TRANSIENT_PASSWORD = "gpdedup-transient".toCharArray();

    /**
     * Writes {@code cert.pem} and {@code key.pem} into {@code dir}, valid for {@code localhost}
     * and 127.0.0.1 plus {@code extraSan} entries in keytool's form ({@code ip:10.0.0.1},
     * {@code dns:store.example}).
     */
    public static SelfSignedCertificate generate(Path dir, String... extraSan) throws IOException {
        OwnerOnly.createDirectories(dir);
        Path keystore = dir.resolve("keystore.p12");
        Files.deleteIfExists(keystore);
        StringBuilder san = new StringBuilder("san=dns:localhost,ip:127.0.0.1");
        for (String s : extraSan) {
            san.append(',').append(s);
        }
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        List<String> cmd = new ArrayList<>(List.of(keytool.toString(), "-genkeypair", "-noprompt", "-alias", "store",
                "-keyalg", "EC", "-groupname", "secp256r1", "-sigalg", "SHA256withECDSA", "-validity", "3650",
                "-dname", "CN=gpdedup-store", "-ext", san.toString(), "-storetype", "PKCS12",
                "-keystore", keystore.toString(), "-storepass", new String(TRANSIENT_PASSWORD)));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output;
        try (InputStream out = p.getInputStream()) {
            output = new String(out.readAllBytes(), StandardCharsets.UTF_8);
        }
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException("keytool failed: " + output.strip());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for keytool", e);
        }
        try (InputStream in = Files.newInputStream(keystore)) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, TRANSIENT_PASSWORD);
            Key key = ks.getKey("store", TRANSIENT_PASSWORD);
            Certificate cert = ks.getCertificate("store");
            Path certFile = dir.resolve("cert.pem");
            Path keyFile = dir.resolve("key.pem");
            OwnerOnly.writeString(certFile, pem("CERTIFICATE", cert.getEncoded()));
            OwnerOnly.writeString(keyFile, pem("PRIVATE KEY", key.getEncoded()));
            return new SelfSignedCertificate(certFile, keyFile);
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot read the keystore keytool made: " + e.getMessage(), e);
        } finally {
            Files.deleteIfExists(keystore);
        }
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
