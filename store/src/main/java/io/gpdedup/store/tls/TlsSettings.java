package io.gpdedup.store.tls;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The server's TLS keys: {@code tls-cert}, {@code tls-key} and {@code tls-required} in the config.
 *
 * @param certFile PEM certificate chain, the server's own first
 * @param keyFile PEM PKCS#8 private key, unencrypted ({@code -----BEGIN PRIVATE KEY-----})
 * @param required true: a plain-text client is refused; false: plain text and TLS are both
 *     accepted on the same port (the first bytes tell which)
 */
public record TlsSettings(Path certFile, Path keyFile, boolean required) {
    public TlsSettings {
        Objects.requireNonNull(certFile, "tls-cert");
        Objects.requireNonNull(keyFile, "tls-key");
    }
}
