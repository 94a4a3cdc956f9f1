package io.gpdedup.store.client;

import io.gpdedup.store.tls.ClientTls;
import java.time.Duration;
import java.util.Objects;

/**
 * Where the store is and who logs in.
 *
 * @param connectTimeout how long to wait for the TCP connection
 * @param readTimeout how long the server may stay silent while a request (other than verify and
 *     gc, which may run for long) waits for its reply; the connection is then dropped
 * @param tls null for plain TCP, else TLS trusting what it says (docs/store.md)
 */
public record ClientSettings(String host, int port, String unit, String user, String password,
        Duration connectTimeout, Duration readTimeout, ClientTls tls) {
    public static final int DEFAULT_PORT = 7411;
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(120);

    public ClientSettings {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(password, "password");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is not 1..65535");
        }
        if (connectTimeout.isNegative() || connectTimeout.isZero() || readTimeout.isNegative() || readTimeout.isZero()) {
            throw new IllegalArgumentException("timeouts must be positive");
        }
    }

    /** Plain TCP (no TLS). */
    public ClientSettings(String host, int port, String unit, String user, String password, Duration connectTimeout, Duration readTimeout) {
        this(host, port, unit, user, password, connectTimeout, readTimeout, null);
    }

    /** Settings with the default timeouts (connect 10 s, read 120 s). */
    public static ClientSettings of(String host, int port, String unit, String user, String password) {
        return new ClientSettings(host, port, unit, user, password, DEFAULT_CONNECT_TIMEOUT, DEFAULT_READ_TIMEOUT);
    }

    public ClientSettings withTimeouts(Duration connect, Duration read) {
        return new ClientSettings(host, port, unit, user, password, connect, read, tls);
    }

    /** The same settings over TLS ({@code tls} non-null) or plain TCP (null). */
    public ClientSettings withTls(ClientTls newTls) {
        return new ClientSettings(host, port, unit, user, password, connectTimeout, readTimeout, newTls);
    }

    /** Never shows the password. */
    @Override
    public String toString() {
        return "ClientSettings[" + user + "@" + host + ":" + port + "/" + unit + ", connect " + connectTimeout + ", read " + readTimeout
                + (tls == null ? "" : ", tls" + (tls.caFile() == null ? "" : " ca " + tls.caFile())) + "]";
    }
}
