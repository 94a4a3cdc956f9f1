package io.gpdedup.store.cli;

import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.ClientTls;
import io.gpdedup.client.StoreAddress;
import io.gpdedup.store.config.ConfigLoader;
import io.gpdedup.store.config.DemoConfig;
import io.gpdedup.store.config.StoreConfig;
import io.gpdedup.store.config.StorePaths;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The options that say which running store a client command talks to, and as whom, and the client
 * settings they give. The address comes from --host/--port, else from the server's own config
 * (--config, else ~/.gpdedup/store.yaml if there is one) and the port file of its data directory;
 * the password from --password-file, else $GPDEDUP_STORE_PASSWORD, else the demo default.
 */
final class StoreConnectionOptions {
    private static final String PASSWORD_ENV = "GPDEDUP_STORE_PASSWORD";

    @Option(names = "--config", paramLabel = "FILE",
            description = "the server's config: its listen address, port and data dir (default: ~/.gpdedup/store.yaml if it exists)")
    private Path config;

    @Option(names = "--host", paramLabel = "HOST", description = "server address, or several separated by commas (host or host:port each), "
            + "tried in order: the stores of a unit and its standby (default: the config's listen-address, else 127.0.0.1)")
    private String host;

    @Option(names = "--port", paramLabel = "N", description = "server port (default: the port file of the data dir, else the config's port, else 7411)")
    private Integer port;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "where to find the port file of a local server (default: the config's data-dir)")
    private Path dataDir;

    @Option(names = "--unit", paramLabel = "UNIT", description = "storage unit (default: ${DEFAULT-VALUE})")
    private String unit = DemoConfig.UNIT;

    @Option(names = "--user", paramLabel = "USER", description = "user (default: ${DEFAULT-VALUE})")
    private String user = DemoConfig.USER;

    @Option(names = "--password-file", paramLabel = "FILE", description = "file whose first line is the password")
    private Path passwordFile;

    @Option(names = "--tls", description = "connect over TLS (a store with tls-cert and tls-key requires it)")
    private boolean tls;

    @Option(names = "--tls-ca-file", paramLabel = "FILE", description = "with --tls: PEM file of the CA or the store's certificate to trust "
            + "(default: the JDK's trusted CAs)")
    private Path tlsCaFile;

    /** Where the address came from, for the message of a failed connection. */
    private String addressSource = "";

    /** The storage unit the command works on. */
    String unit() {
        return unit;
    }

    /**
     * The client settings of these options; a bad option, config or password file is thrown as a
     * {@link ConfigLoader.ConfigException}, {@link IllegalArgumentException} or {@link IOException}
     * whose message is one line for the user.
     */
    ClientSettings settings() throws IOException {
        StoreConfig cfg = serverConfig();
        ClientSettings settings = ClientSettings.of(addresses(cfg), unit, user, password());
        if (tls) {
            return settings.withTls(tlsCaFile == null ? ClientTls.systemTrust() : ClientTls.trusting(tlsCaFile));
        }
        if (tlsCaFile != null) {
            throw new IllegalArgumentException("--tls-ca-file goes with --tls");
        }
        return settings;
    }

    /** " (port from FILE)" and the like: where {@link #settings()} found the address, empty if given. */
    String addressSource() {
        return addressSource;
    }

    /**
     * The server's config: the one named, else the default one if it exists and no --port says
     * where to go; else null.
     */
    private StoreConfig serverConfig() {
        if (config != null) {
            return ConfigLoader.load(config);
        }
        Path file = StorePaths.defaultConfigFile();
        return port == null && Files.isRegularFile(file) ? ConfigLoader.load(file) : null;
    }

    /** The stores to try: those of --host (an entry without a port gets the one found as below), else one. */
    private List<StoreAddress> addresses(StoreConfig cfg) throws IOException {
        int defaultPort = port(cfg);
        if (host == null) {
            return List.of(new StoreAddress(host(cfg), defaultPort));
        }
        try {
            return StoreAddress.parseList(host, defaultPort);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--host " + e.getMessage());
        }
    }

    private static String host(StoreConfig cfg) {
        if (cfg == null) {
            return StoreConfig.DEFAULT_LISTEN_ADDRESS;
        }
        String listen = cfg.listenAddress();
        // A server on every interface is reached on loopback from its own host.
        return listen.equals("0.0.0.0") || listen.equals("::") ? StoreConfig.DEFAULT_LISTEN_ADDRESS : listen;
    }

    private int port(StoreConfig cfg) throws IOException {
        if (port != null) {
            return port;
        }
        Path dir = dataDir != null ? dataDir : cfg != null ? cfg.dataDir() : StorePaths.defaultDataDir();
        Path file = StorePaths.portFile(dir);
        if (Files.isRegularFile(file)) {
            addressSource = " (port from " + file + ")";
            try {
                return Integer.parseInt(Files.readString(file).trim());
            } catch (NumberFormatException e) {
                throw new IOException("port file " + file + " does not hold a port number");
            }
        }
        if (cfg != null) {
            addressSource = " (address from config " + (config != null ? config : StorePaths.defaultConfigFile()) + "; no port file " + file + ")";
            return cfg.port();
        }
        addressSource = " (default address: no port file " + file + " and no config; give --config FILE or --host and --port)";
        return StoreConfig.DEFAULT_PORT;
    }

    private String password() throws IOException {
        if (passwordFile != null) {
            String text;
            try {
                text = Files.readString(passwordFile, StandardCharsets.UTF_8);
            } catch (NoSuchFileException e) {
                throw new IOException("password file " + passwordFile + " does not exist");
            } catch (AccessDeniedException e) {
                throw new IOException("password file " + passwordFile + " is not readable by this user (permission denied)");
            } catch (IOException e) {
                throw new IOException("cannot read password file " + passwordFile + ": " + (e.getMessage() == null ? "read failed" : e.getMessage()));
            }
            int nl = text.indexOf('\n');
            String first = (nl < 0 ? text : text.substring(0, nl)).strip();
            if (first.isEmpty()) {
                throw new IOException("password file " + passwordFile + " is empty: its first line must be the password");
            }
            return first;
        }
        String env = System.getenv(PASSWORD_ENV);
        return env != null ? env : DemoConfig.PASSWORD;
    }
}
