package io.gpdedup.store.protocol;

import java.util.Objects;

/**
 * Where a replication job copies a backup to: a second store, the unit and user to log in with
 * there, and the object-name prefix the copies get. Holds no password.
 */
public record ReplicaTarget(String host, int port, String unit, String user, String prefix) {
    public ReplicaTarget {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(prefix, "prefix");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("remote port " + port + " is not 1..65535");
        }
    }

    /** {@code user@host:port/unit/prefix}, as the status shows it. */
    @Override
    public String toString() {
        return user + "@" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port + "/" + unit + "/" + prefix;
    }
}
