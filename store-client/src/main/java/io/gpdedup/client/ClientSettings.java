package io.gpdedup.client;

import io.gpdedup.client.ClientTls;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Where the store is and who logs in.
 *
 * @param addresses the stores that may serve the unit, tried in this order (the one that served
 *     last first), moving on from one that is away or does not hold the unit now (NOT_SERVED)
 * @param connectTimeout how long to wait for the TCP connection
 * @param readTimeout how long the server may stay silent while a request (other than verify and
 *     gc, which may run for long) waits for its reply; the connection is then dropped
 * @param tls null for plain TCP, else TLS trusting what it says (docs/store.md)
 * @param reconnectTimeout how long a client whose connection broke keeps trying to connect again and
 *     carry on what was in progress (requests that only read, backup sessions: docs/protocol.md section
 *     3.5) before it fails them; zero: they fail at once
 */
public record ClientSettings(List<StoreAddress> addresses, String unit, String user, String password,
        Duration connectTimeout, Duration readTimeout, ClientTls tls, Duration reconnectTimeout) {
    public static final int DEFAULT_PORT = 7411;
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(120);

    public ClientSettings {
        addresses = List.copyOf(addresses);
        if (addresses.isEmpty()) {
            throw new IllegalArgumentException("no store address");
        }
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(password, "password");
        if (connectTimeout.isNegative() || connectTimeout.isZero() || readTimeout.isNegative() || readTimeout.isZero()) {
            throw new IllegalArgumentException("timeouts must be positive");
        }
        if (reconnectTimeout.isNegative()) {
            throw new IllegalArgumentException("the reconnect timeout must not be negative");
        }
    }

    /** One store. */
    public ClientSettings(String host, int port, String unit, String user, String password,
            Duration connectTimeout, Duration readTimeout, ClientTls tls, Duration reconnectTimeout) {
        this(List.of(new StoreAddress(host, port)), unit, user, password, connectTimeout, readTimeout, tls, reconnectTimeout);
    }

    /** One store, plain TCP (no TLS), no reconnecting. */
    public ClientSettings(String host, int port, String unit, String user, String password, Duration connectTimeout, Duration readTimeout) {
        this(host, port, unit, user, password, connectTimeout, readTimeout, null, Duration.ZERO);
    }

    /** Settings for one store with the default timeouts (connect 10 s, read 120 s) and no reconnecting. */
    public static ClientSettings of(String host, int port, String unit, String user, String password) {
        return new ClientSettings(host, port, unit, user, password, DEFAULT_CONNECT_TIMEOUT, DEFAULT_READ_TIMEOUT);
    }

    /** Settings for these stores with the default timeouts and no reconnecting. */
    public static ClientSettings of(List<StoreAddress> addresses, String unit, String user, String password) {
        return new ClientSettings(addresses, unit, user, password, DEFAULT_CONNECT_TIMEOUT, DEFAULT_READ_TIMEOUT, null, Duration.ZERO);
    }

    /** The host of the first address: the only one of a client given one store. */
    public String host() {
        return addresses.get(0).host();
    }

    /** The port of the first address: the only one of a client given one store. */
    public int port() {
        return addresses.get(0).port();
    }

    public ClientSettings withTimeouts(Duration connect, Duration read) {
        return new ClientSettings(addresses, unit, user, password, connect, read, tls, reconnectTimeout);
    }

    /** The same settings over TLS ({@code tls} non-null) or plain TCP (null). */
    public ClientSettings withTls(ClientTls newTls) {
        return new ClientSettings(addresses, unit, user, password, connectTimeout, readTimeout, newTls, reconnectTimeout);
    }

    /** The same settings with this reconnect timeout (zero: never reconnect). */
    public ClientSettings withReconnectTimeout(Duration timeout) {
        return new ClientSettings(addresses, unit, user, password, connectTimeout, readTimeout, tls, timeout);
    }

    /** Never shows the password. */
    @Override
    public String toString() {
        return "ClientSettings[" + user + "@" + StoreAddress.text(addresses) + "/" + unit + ", connect " + connectTimeout + ", read " + readTimeout
                + (tls == null ? "" : ", tls" + (tls.caFile() == null ? "" : " ca " + tls.caFile()))
                + (reconnectTimeout.isZero() ? "" : ", reconnect " + reconnectTimeout) + "]";
    }
}
