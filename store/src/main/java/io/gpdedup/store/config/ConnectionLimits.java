package io.gpdedup.store.config;

import java.time.Duration;

/**
 * How many connections and logins the server takes on at once (docs/store.md): connections that
 * have not logged in within {@code loginTimeout} are closed; {@code maxConnections} and
 * {@code maxConnectionsPerAddress} cap the sockets (0: derived from the process's descriptor
 * limit at start, see {@code net.ConnectionLimiter}); {@code maxPendingLogins} caps the password
 * checks waiting or running at once; {@code holds} caps what the connections may make the server hold.
 */
public record ConnectionLimits(Duration loginTimeout, int maxConnections, int maxConnectionsPerAddress, int maxPendingLogins, HoldLimits holds) {
    static final Duration DEFAULT_LOGIN_TIMEOUT = Duration.ofSeconds(5);
    /** For {@code maxConnections} and {@code maxConnectionsPerAddress}: derive from the descriptor limit. */
    public static final int AUTO = 0;
    static final int DEFAULT_MAX_PENDING_LOGINS = 256;

    public ConnectionLimits {
        if (loginTimeout.isNegative() || loginTimeout.isZero()) {
            throw new IllegalArgumentException("login-timeout-seconds must be positive");
        }
        if (maxConnections < 0) {
            throw new IllegalArgumentException("max-connections " + maxConnections + " is negative (0 = from the descriptor limit)");
        }
        if (maxConnectionsPerAddress < 0) {
            throw new IllegalArgumentException("max-connections-per-address " + maxConnectionsPerAddress
                    + " is negative (0 = half of max-connections)");
        }
        if (maxPendingLogins < 1) {
            throw new IllegalArgumentException("max-pending-logins " + maxPendingLogins + " is below 1");
        }
        java.util.Objects.requireNonNull(holds, "holds");
    }

    ConnectionLimits(Duration loginTimeout, int maxConnections, int maxConnectionsPerAddress, int maxPendingLogins) {
        this(loginTimeout, maxConnections, maxConnectionsPerAddress, maxPendingLogins, HoldLimits.DEFAULT);
    }

    public static ConnectionLimits defaults() {
        return new ConnectionLimits(DEFAULT_LOGIN_TIMEOUT, AUTO, AUTO, DEFAULT_MAX_PENDING_LOGINS);
    }

    @Override
    public String toString() {
        return "login-timeout=" + loginTimeout + ", max-connections=" + (maxConnections == AUTO ? "auto" : maxConnections)
                + ", max-connections-per-address=" + (maxConnectionsPerAddress == AUTO ? "auto" : maxConnectionsPerAddress)
                + ", max-pending-logins=" + maxPendingLogins + ", " + holds;
    }
}
