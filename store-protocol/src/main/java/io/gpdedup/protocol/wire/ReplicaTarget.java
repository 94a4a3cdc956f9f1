package io.gpdedup.protocol.wire;

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

    int wireSize() {
        return WireWriter.strSize(host) + 2 + WireWriter.strSize(unit) + WireWriter.strSize(user) + WireWriter.strSize(prefix);
    }

    void write(WireWriter out) {
        out.str(host);
        out.u16(port);
        out.str(unit);
        out.str(user);
        out.str(prefix);
    }

    static ReplicaTarget read(WireReader in) {
        String host = in.str("remote host");
        int port = in.u16("remote port");
        String unit = in.str("remote unit");
        String user = in.str("remote user");
        String prefix = in.str("target prefix");
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
