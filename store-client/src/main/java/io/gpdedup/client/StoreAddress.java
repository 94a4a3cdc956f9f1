package io.gpdedup.client;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Where one gpdedup-store listens. Written {@code host}, {@code host:port} or, for an IPv6
 * literal with a port, {@code [::1]:port}; a list is several of them separated by commas.
 */
public record StoreAddress(String host, int port) {
    public StoreAddress {
        Objects.requireNonNull(host, "host");
        if (host.isEmpty()) {
            throw new IllegalArgumentException("the host is empty");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is not 1..65535");
        }
    }

    /**
     * The addresses of a comma-separated list, in its order; an entry without a port gets
     * {@code defaultPort}. Throws IllegalArgumentException with a message that completes
     * "option 'x' ..." for an empty entry, a bad port or an address listed twice.
     */
    public static List<StoreAddress> parseList(String text, int defaultPort) {
        String[] entries = text.split(",", -1);
        List<StoreAddress> out = new ArrayList<>(entries.length);
        Set<String> seen = new HashSet<>();
        for (String raw : entries) {
            String entry = raw.strip();
            if (entry.isEmpty()) {
                throw new IllegalArgumentException("has an empty entry (write host or host:port between the commas), got '" + text + "'");
            }
            StoreAddress a = parse(entry, defaultPort);
            // Host names are case-insensitive: NODE-A and node-a are the same store.
            if (!seen.add(a.host().toLowerCase(Locale.ROOT) + " " + a.port())) {
                throw new IllegalArgumentException("lists " + a + " twice, got '" + text + "'");
            }
            out.add(a);
        }
        return List.copyOf(out);
    }

    private static StoreAddress parse(String entry, int defaultPort) {
        if (entry.chars().anyMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
            throw new IllegalArgumentException("has a space or control character in entry '" + entry + "'");
        }
        String host;
        String port;
        if (entry.startsWith("[")) {
            int close = entry.indexOf(']');
            if (close < 0 || close == 1) {
                throw new IllegalArgumentException("has entry '" + entry + "': write an IPv6 address as [address] or [address]:port");
            }
            host = entry.substring(1, close);
            String rest = entry.substring(close + 1);
            if (!rest.isEmpty() && !rest.startsWith(":")) {
                throw new IllegalArgumentException("has entry '" + entry + "': write an IPv6 address as [address] or [address]:port");
            }
            port = rest.isEmpty() ? null : rest.substring(1);
        } else {
            int colon = entry.indexOf(':');
            if (colon >= 0 && colon != entry.lastIndexOf(':')) {
                // Several colons: an IPv6 literal, which can carry a port only in brackets.
                host = entry;
                port = null;
            } else if (colon >= 0) {
                host = entry.substring(0, colon);
                port = entry.substring(colon + 1);
                if (host.isEmpty()) {
                    throw new IllegalArgumentException("has entry '" + entry + "' without a host");
                }
            } else {
                host = entry;
                port = null;
            }
        }
        if (port == null) {
            return new StoreAddress(host, defaultPort);
        }
        if (port.isEmpty() || port.length() > 5 || !port.chars().allMatch(c -> c >= '0' && c <= '9')
                || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535) {
            throw new IllegalArgumentException("has port '" + port + "' in entry '" + entry + "': a port is 1..65535");
        }
        return new StoreAddress(host, Integer.parseInt(port));
    }

    /** The addresses as a message names them: "node-a:7411, node-b:7411". */
    public static String text(List<StoreAddress> addresses) {
        return addresses.stream().map(StoreAddress::toString).collect(Collectors.joining(", "));
    }

    /** {@code host:port}, an IPv6 literal in brackets. */
    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
