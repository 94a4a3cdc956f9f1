package io.gpdedup.dedup;

import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.ClientTls;
import io.gpdedup.client.StoreAddress;
import io.gpdedup.dedup.chunk.ChunkerParams;
import io.gpdedup.plugin.api.OptionSpec;
import io.gpdedup.plugin.api.PluginException;
import io.gpdedup.plugin.api.PluginOptions;
import io.gpdedup.protocol.codec.ChunkCodec;
import io.gpdedup.protocol.codec.Codec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The options of gpbackup_dedup_plugin, in the style of the appliance plugins, read into typed values.
 *
 * @param replication the remote store each completed backup is copied to, when {@code replication} is "on"
 * @param failoverRetain bytes of new chunks a backup stream keeps for a standby store that takes a
 *     bucket unit over before they were uploaded (docs/dedup-plugin.md)
 */
record DedupOptions(ClientSettings store, String directory, ChunkCodec codec, ChunkerParams chunking, Optional<Remote> replication,
        long failoverRetain) {
    /** The second store: where replication and replicate_backup copy a backup to. */
    record Remote(ClientSettings store, String directory) {
    }

    static final String HOSTNAME = "hostname";
    static final String PORT = "port";
    static final String USERNAME = "username";
    static final String PASSWORD = "password";
    static final String PASSWORD_ENCRYPTION = "password_encryption";
    static final String STORAGE_UNIT = "storage_unit";
    static final String DIRECTORY = "directory";
    static final String RESTORE_SUBSET = "restore_subset";
    static final String COMPRESSION = "compression";
    static final String COMPRESSION_LEVEL = "compression_level";
    static final String CHUNK_MIN = "chunk_min_size";
    static final String CHUNK_AVG = "chunk_avg_size";
    static final String CHUNK_MAX = "chunk_max_size";
    static final String CONNECT_TIMEOUT = "connect_timeout_seconds";
    static final String RECONNECT_TIMEOUT = "reconnect_timeout_seconds";
    static final String FAILOVER_RETAIN = "failover_retain_size";
    static final String TLS = "tls";
    static final String TLS_CA_FILE = "tls_ca_file";
    static final String REPLICATION = "replication";
    static final String REMOTE_HOSTNAME = "remote_hostname";
    static final String REMOTE_PORT = "remote_port";
    static final String REMOTE_USERNAME = "remote_username";
    static final String REMOTE_PASSWORD = "remote_password";
    static final String REMOTE_PASSWORD_ENCRYPTION = "remote_password_encryption";
    static final String REMOTE_STORAGE_UNIT = "remote_storage_unit";
    static final String REMOTE_DIRECTORY = "remote_directory";
    private static final List<String> REMOTE_REQUIRED = List.of(REMOTE_HOSTNAME, REMOTE_USERNAME, REMOTE_PASSWORD, REMOTE_STORAGE_UNIT);

    static List<OptionSpec> specs() {
        return List.of(
                OptionSpec.required(HOSTNAME, OptionSpec.Type.STRING,
                        "host name or address of gpdedup-store, or a comma-separated list of stores (host or host:port) tried in order"),
                OptionSpec.optional(PORT, OptionSpec.Type.INTEGER, String.valueOf(ClientSettings.DEFAULT_PORT),
                        "gpdedup-store port (of each hostname entry without its own)"),
                OptionSpec.required(USERNAME, OptionSpec.Type.STRING, "user of the storage unit"),
                OptionSpec.required(PASSWORD, OptionSpec.Type.STRING, "password of that user"),
                OptionSpec.optional(PASSWORD_ENCRYPTION, OptionSpec.Type.ON_OFF, "off",
                        "\"on\": password is encrypted with the key gpbackup reads from the coordinator's .encrypt file"),
                OptionSpec.required(STORAGE_UNIT, OptionSpec.Type.STRING, "storage unit on the store"),
                OptionSpec.required(DIRECTORY, OptionSpec.Type.STRING, "directory inside the storage unit for this cluster's backups"),
                OptionSpec.optional(RESTORE_SUBSET, OptionSpec.Type.ON_OFF, "off",
                        "\"on\": gprestore fetches only the tables a filtered restore needs (gprestore reads this option itself)"),
                OptionSpec.choice(COMPRESSION, "zstd", List.of("zstd", "lz4", "none"), "codec for chunks the store lacks"),
                OptionSpec.optional(COMPRESSION_LEVEL, OptionSpec.Type.INTEGER, "1", "zstd level (1 fastest .. 19 smallest)"),
                OptionSpec.optional(CHUNK_MIN, OptionSpec.Type.SIZE, String.valueOf(ChunkerParams.DEFAULT.minSize()), "smallest chunk"),
                OptionSpec.optional(CHUNK_AVG, OptionSpec.Type.SIZE, String.valueOf(ChunkerParams.DEFAULT.avgSize()), "average chunk (a power of two)"),
                OptionSpec.optional(CHUNK_MAX, OptionSpec.Type.SIZE, String.valueOf(ChunkerParams.DEFAULT.maxSize()), "largest chunk"),
                OptionSpec.optional(CONNECT_TIMEOUT, OptionSpec.Type.INTEGER, String.valueOf(ClientSettings.DEFAULT_CONNECT_TIMEOUT.toSeconds()),
                        "how long a call waits for its first connection and login (a store that refuses, or accepts and never answers)"),
                OptionSpec.optional(RECONNECT_TIMEOUT, OptionSpec.Type.INTEGER, "300",
                        "how long a call that lost its store connection tries to get it back before it fails (0: fail at once)"),
                OptionSpec.optional(FAILOVER_RETAIN, OptionSpec.Type.SIZE, "64MiB",
                        "new chunk bytes a backup stream to a bucket unit keeps until the store has uploaded them, to send again"
                                + " to a standby store that takes the unit over (0: none)"),
                OptionSpec.optional(TLS, OptionSpec.Type.ON_OFF, "off", "connect to gpdedup-store over TLS"),
                OptionSpec.optional(TLS_CA_FILE, OptionSpec.Type.ABSOLUTE_PATH, null,
                        "tls: PEM file of the CA or server certificate to trust (default: the JDK's trusted CAs)"),
                OptionSpec.optional(REPLICATION, OptionSpec.Type.ON_OFF, "off",
                        "\"on\": the store copies each completed backup to the remote store in the background"),
                OptionSpec.optional(REMOTE_HOSTNAME, OptionSpec.Type.STRING, null, "replication: host of the remote store"),
                OptionSpec.optional(REMOTE_PORT, OptionSpec.Type.INTEGER, String.valueOf(ClientSettings.DEFAULT_PORT), "replication: remote port"),
                OptionSpec.optional(REMOTE_USERNAME, OptionSpec.Type.STRING, null, "replication: user of the remote storage unit"),
                OptionSpec.optional(REMOTE_PASSWORD, OptionSpec.Type.STRING, null, "replication: password of that user"),
                OptionSpec.optional(REMOTE_PASSWORD_ENCRYPTION, OptionSpec.Type.ON_OFF, "off", "replication: remote_password is encrypted"),
                OptionSpec.optional(REMOTE_STORAGE_UNIT, OptionSpec.Type.STRING, null, "replication: remote storage unit"),
                OptionSpec.optional(REMOTE_DIRECTORY, OptionSpec.Type.STRING, null, "replication: directory in the remote unit (default: directory)"));
    }

    static DedupOptions from(PluginOptions o, String pluginName) {
        String password = password(o, PASSWORD, PASSWORD_ENCRYPTION, pluginName);
        long port = port(o, PORT);
        String directory = directory(o, DIRECTORY);
        ChunkerParams chunking;
        try {
            chunking = new ChunkerParams(Math.toIntExact(o.size(CHUNK_MIN)), Math.toIntExact(o.size(CHUNK_AVG)), Math.toIntExact(o.size(CHUNK_MAX)));
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new PluginException("chunk sizes: " + e.getMessage());
        }
        Codec codec = Codec.valueOf(o.require(COMPRESSION).toUpperCase(Locale.ROOT));
        ChunkCodec chunkCodec;
        try {
            chunkCodec = ChunkCodec.of(codec, Math.toIntExact(o.integer(COMPRESSION_LEVEL)));
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new PluginException("option 'compression_level': " + e.getMessage());
        }
        long reconnect = o.integer(RECONNECT_TIMEOUT);
        if (reconnect < 0) {
            throw new PluginException("option '" + RECONNECT_TIMEOUT + "' must be 0 or more seconds, got " + reconnect);
        }
        long connect = o.integer(CONNECT_TIMEOUT);
        if (connect < 1) {
            throw new PluginException("option '" + CONNECT_TIMEOUT + "' must be 1 or more seconds, got " + connect);
        }
        ClientSettings store = ClientSettings.of(addresses(o, (int) port), o.require(STORAGE_UNIT), o.require(USERNAME), password)
                .withTimeouts(Duration.ofSeconds(connect), ClientSettings.DEFAULT_READ_TIMEOUT)
                .withTls(tls(o)).withReconnectTimeout(Duration.ofSeconds(reconnect));
        boolean configured = remoteConfigured(o);
        if (o.isOn(REPLICATION) && !configured) {
            throw new PluginException("replication is on but no remote store is configured: set " + String.join(", ", REMOTE_REQUIRED));
        }
        // Only with replication on: gpbackup hands the plugin the .encrypt key for remote_password only then.
        Optional<Remote> replication = o.isOn(REPLICATION) ? Optional.of(remote(o, pluginName)) : Optional.empty();
        return new DedupOptions(store, directory, chunkCodec, chunking, replication, o.size(FAILOVER_RETAIN));
    }

    /** Whether the remote_* options are given: all of host, user, password and unit, or none. */
    private static boolean remoteConfigured(PluginOptions o) {
        long given = REMOTE_REQUIRED.stream().filter(o::isSet).count();
        if (given > 0 && given < REMOTE_REQUIRED.size()) {
            throw new PluginException("replication needs all of " + String.join(", ", REMOTE_REQUIRED));
        }
        return given > 0;
    }

    /**
     * The remote store of the remote_* options, its password decrypted if remote_password_encryption
     * is on: for replication, and for replicate_backup and delete_replica, which need it whatever
     * the replication switch says.
     */
    static Remote remote(PluginOptions o, String pluginName) {
        if (!remoteConfigured(o)) {
            throw new PluginException("no remote store configured: set " + String.join(", ", REMOTE_REQUIRED));
        }
        ClientSettings remote = ClientSettings.of(o.require(REMOTE_HOSTNAME), (int) port(o, REMOTE_PORT), o.require(REMOTE_STORAGE_UNIT),
                o.require(REMOTE_USERNAME), password(o, REMOTE_PASSWORD, REMOTE_PASSWORD_ENCRYPTION, pluginName));
        String remoteDirectory = directory(o, o.isSet(REMOTE_DIRECTORY) ? REMOTE_DIRECTORY : DIRECTORY);
        return new Remote(remote, remoteDirectory);
    }

    private static ClientTls tls(PluginOptions o) {
        if (!o.isOn(TLS)) {
            if (o.isSet(TLS_CA_FILE)) {
                throw new PluginException("option '" + TLS_CA_FILE + "' is set but '" + TLS + "' is off: set tls: on to use it");
            }
            return null;
        }
        return o.get(TLS_CA_FILE).map(f -> ClientTls.trusting(Path.of(f))).orElseGet(ClientTls::systemTrust);
    }

    private static String password(PluginOptions o, String option, String encryptionOption, String pluginName) {
        String password = o.require(option);
        if (!o.isOn(encryptionOption)) {
            return password;
        }
        String key = o.get(pluginName).orElseThrow(() -> new PluginException(encryptionOption + " is on but the config has no '"
                + pluginName + "' key: gpbackup adds it from the coordinator's .encrypt file"));
        return PasswordCipher.decrypt(password, key);
    }

    /** The stores of option hostname: one, or a comma-separated list, entries without a port on {@code port}. */
    private static List<StoreAddress> addresses(PluginOptions o, int port) {
        try {
            return StoreAddress.parseList(o.require(HOSTNAME), port);
        } catch (IllegalArgumentException e) {
            throw new PluginException("option '" + HOSTNAME + "' " + e.getMessage());
        }
    }

    private static long port(PluginOptions o, String option) {
        long port = o.integer(option);
        if (port < 1 || port > 65535) {
            throw new PluginException("option '" + option + "' must be 1..65535, got " + port);
        }
        return port;
    }

    private static String directory(PluginOptions o, String option) {
        String directory = o.require(option);
        io.gpdedup.protocol.naming.RemoteName.requirePrintable("option '" + option + "'", directory);
        if (directory.isEmpty() || directory.startsWith("/") || directory.endsWith("/") || directory.contains("//")
                || List.of(directory.split("/")).stream().anyMatch(p -> p.equals("..") || p.equals("."))) {
            throw new PluginException("option '" + option + "' must be a relative path inside the storage unit without '.' or '..', got '"
                    + directory + "'");
        }
        return directory;
    }
}
