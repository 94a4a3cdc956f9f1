package io.gpdedup.store.replication;

import io.gpdedup.client.ClientTls;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * A store the operator lets this store copy backups to (config {@code replication-targets}): a
 * REPLICATE is queued only when its remote host and port are those of a target the unit may use,
 * so a unit's user never makes the store connect anywhere else.
 *
 * @param name the target's key in the config, shown in messages
 * @param tls null for plain TCP, else TLS with the remote's certificate checked against it
 * @param units the units that may copy to it; empty: every unit
 */
public record ReplicationTarget(String name, String host, int port, ClientTls tls, Set<String> units) {
    public ReplicationTarget {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(host, "host");
        if (host.isBlank()) {
            throw new IllegalArgumentException("replication-targets." + name + ".host is empty");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("replication-targets." + name + ".port " + port + " is not 1..65535");
        }
        units = Set.copyOf(units);
    }

    /** Whether a copy of {@code unit} to {@code toHost}:{@code toPort} goes to this target. Host names compare as written, case aside. */
    boolean serves(String unit, String toHost, int toPort) {
        return port == toPort && host.toLowerCase(Locale.ROOT).equals(toHost.toLowerCase(Locale.ROOT))
                && (units.isEmpty() || units.contains(unit));
    }

    boolean allows(String unit) {
        return units.isEmpty() || units.contains(unit);
    }

    /** {@code name (host:port)}, as messages show it. */
    @Override
    public String toString() {
        return name + " (" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port + (tls == null ? "" : ", tls") + ")";
    }
}
