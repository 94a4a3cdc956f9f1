package io.gpdedup.bench.runner;

import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.ClientTls;
import io.gpdedup.client.StoreAuthException;
import io.gpdedup.client.StoreClient;
import io.gpdedup.client.StoreClientException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * A real gpdedup-store to test (the options of {@code connchk} and {@code calibrate} against one),
 * reached as the dedup plugin reaches it: host, port, storage unit, user, the password from a file,
 * and TLS as the plugin's {@code tls} and {@code tls_ca_file} options.
 */
final class StoreTarget {
    @Option(names = "--host", paramLabel = "HOST", description = "a real gpdedup-store to test instead of the simulated appliance")
    String host;

    @Option(names = "--port", paramLabel = "PORT", description = "its port (default: " + ClientSettings.DEFAULT_PORT + ")")
    Integer port;

    @Option(names = "--unit", paramLabel = "UNIT", description = "storage unit to write the test data to (with --host)")
    String unit;

    @Option(names = "--user", paramLabel = "USER", description = "user of that unit (with --host)")
    String user;

    @Option(names = "--password-file", paramLabel = "FILE", description = "file whose first line is that user's password (with --host)")
    Path passwordFile;

    @Option(names = "--tls", description = "connect over TLS, as the plugin's tls: on")
    boolean tls;

    @Option(names = "--tls-ca-file", paramLabel = "FILE",
            description = "with --tls: PEM file of the CA or server certificate to trust, as the plugin's tls_ca_file (default: the JDK's CAs)")
    Path tlsCaFile;

    /** Whether a real store was named. */
    boolean given() {
        return host != null;
    }

    /** Options that describe the simulated appliance, refused with a real store. */
    static void refuse(String what, boolean given) {
        if (given) {
            throw new IllegalArgumentException(what + " is for the simulated appliance, not a real store (--host)");
        }
    }

    /** Store options without {@code --host} are a mistake, not something to ignore. */
    void refuseWithoutHost() {
        if (!given() && (port != null || unit != null || user != null || passwordFile != null || tls || tlsCaFile != null)) {
            throw new IllegalArgumentException("--port, --unit, --user, --password-file and --tls need --host");
        }
    }

    /** The client settings these options give; bad or missing options and an unreadable password file are one clear message. */
    ClientSettings settings() {
        if (!given()) {
            throw new IllegalArgumentException("no store: give --host");
        }
        for (var required : List.of(new Object[] {"--unit", unit}, new Object[] {"--user", user}, new Object[] {"--password-file", passwordFile})) {
            if (required[1] == null) {
                throw new IllegalArgumentException(required[0] + " is required with --host");
            }
        }
        int p = port == null ? ClientSettings.DEFAULT_PORT : port;
        if (p < 1 || p > 65535) {
            throw new IllegalArgumentException("--port must be 1..65535, got " + p);
        }
        if (tlsCaFile != null && !tls) {
            throw new IllegalArgumentException("--tls-ca-file is set but --tls is not: add --tls to use it");
        }
        if (tlsCaFile != null && !Files.isReadable(tlsCaFile)) {
            throw new IllegalArgumentException("cannot read --tls-ca-file " + tlsCaFile);
        }
        ClientSettings s = ClientSettings.of(host, p, unit, user, password())
                .withTimeouts(ClientSettings.DEFAULT_CONNECT_TIMEOUT, Duration.ofSeconds(600));
        return tls ? s.withTls(tlsCaFile == null ? ClientTls.systemTrust() : ClientTls.trusting(tlsCaFile)) : s;
    }

    private String password() {
        try {
            String text = Files.readString(passwordFile, StandardCharsets.UTF_8);
            int nl = text.indexOf('\n');
            String first = (nl < 0 ? text : text.substring(0, nl)).strip();
            if (first.isEmpty()) {
                throw new IllegalArgumentException("--password-file " + passwordFile + " is empty: its first line must be the password");
            }
            return first;
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("cannot read --password-file " + passwordFile + ": no such file");
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read --password-file " + passwordFile + ": " + e.getMessage());
        }
    }

    /**
     * Connects once (within the connect timeout, 10 s: also a store that accepts and never answers)
     * and pings, so that an unreachable store or a refused login is one clear line before anything
     * is written.
     */
    void check(ClientSettings s) {
        try (StoreClient c = StoreClient.connectWithin(s)) {
            c.ping();
        } catch (StoreAuthException e) {
            throw new Unusable(e.getMessage() + " (check --user, --unit and the password in --password-file " + passwordFile + ")");
        } catch (StoreClientException e) {
            // the client's messages name the store and what failed (refused, unreachable, TLS)
            throw new Unusable(e.getMessage());
        }
    }

    /** The store cannot be used: not reachable, login refused, failed mid-run. Exit 1, one line. */
    static final class Unusable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unusable(String message) {
            super(message);
        }
    }
}
