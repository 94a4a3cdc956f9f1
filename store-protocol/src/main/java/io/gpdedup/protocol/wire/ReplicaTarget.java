package io.gpdedup.protocol.wire;

import static io.gpdedup.protocol.wire.Fields.str;
import static io.gpdedup.protocol.wire.Fields.u16;

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

    /** Read whole before its port is checked: a frame that ends inside the target says that first. */
    static final WireType<ReplicaTarget> WIRE = Fields.of(ReplicaTarget::received, str("remote host", ReplicaTarget::host),
            u16("remote port", ReplicaTarget::port), str("remote unit", ReplicaTarget::unit), str("remote user", ReplicaTarget::user),
            str("target prefix", ReplicaTarget::prefix));

    private static ReplicaTarget received(String host, int port, String unit, String user, String prefix) {
        if (port == 0) {
            throw WireReader.malformed("remote port 0");
        }
        return new ReplicaTarget(host, port, unit, user, prefix);
    }

    /** {@code user@host:port/unit/prefix}, as the status shows it. */
    @Override
    public String toString() {
        return user + "@" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port + "/" + unit + "/" + prefix;
    }
}
