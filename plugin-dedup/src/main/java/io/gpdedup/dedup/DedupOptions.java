package io.gpdedup.dedup;

import io.gpdedup.dedup.chunk.ChunkerParams;
import io.gpdedup.plugin.api.OptionSpec;
import io.gpdedup.plugin.api.PluginException;
import io.gpdedup.plugin.api.PluginOptions;
import io.gpdedup.store.client.ClientSettings;
import io.gpdedup.store.codec.ChunkCodec;
import io.gpdedup.store.engine.Codec;
import java.util.List;
import java.util.Locale;

/** The options of gpbackup_dedup_plugin, in the style of the appliance plugins, read into typed values. */
record DedupOptions(ClientSettings store, String directory, boolean restoreSubset, ChunkCodec codec, ChunkerParams chunking) {
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

    static List<OptionSpec> specs() {
        return List.of(
                OptionSpec.required(HOSTNAME, OptionSpec.Type.STRING, "host name or address of gpdedup-store"),
                OptionSpec.optional(PORT, OptionSpec.Type.INTEGER, String.valueOf(ClientSettings.DEFAULT_PORT), "gpdedup-store port"),
                OptionSpec.required(USERNAME, OptionSpec.Type.STRING, "user of the storage unit"),
                OptionSpec.required(PASSWORD, OptionSpec.Type.STRING, "password of that user"),
                OptionSpec.optional(PASSWORD_ENCRYPTION, OptionSpec.Type.ON_OFF, "off",
                        "\"on\": password is encrypted with the key gpbackup reads from the coordinator's .encrypt file"),
                OptionSpec.required(STORAGE_UNIT, OptionSpec.Type.STRING, "storage unit on the store"),
                OptionSpec.required(DIRECTORY, OptionSpec.Type.STRING, "directory inside the storage unit for this cluster's backups"),
                OptionSpec.optional(RESTORE_SUBSET, OptionSpec.Type.ON_OFF, "on", "let gprestore fetch only the tables it restores"),
                OptionSpec.choice(COMPRESSION, "zstd", List.of("zstd", "lz4", "none"), "codec for chunks the store lacks"),
                OptionSpec.optional(COMPRESSION_LEVEL, OptionSpec.Type.INTEGER, "1", "zstd level (1 fastest .. 19 smallest)"),
                OptionSpec.optional(CHUNK_MIN, OptionSpec.Type.SIZE, String.valueOf(ChunkerParams.DEFAULT.minSize()), "smallest chunk"),
                OptionSpec.optional(CHUNK_AVG, OptionSpec.Type.SIZE, String.valueOf(ChunkerParams.DEFAULT.avgSize()), "average chunk (a power of two)"),
                OptionSpec.optional(CHUNK_MAX, OptionSpec.Type.SIZE, String.valueOf(ChunkerParams.DEFAULT.maxSize()), "largest chunk"));
    }

    static DedupOptions from(PluginOptions o, String pluginName) {
        String password = o.require(PASSWORD);
        if (o.isOn(PASSWORD_ENCRYPTION)) {
            String key = o.get(pluginName).orElseThrow(() -> new PluginException("password_encryption is on but the config has no '"
                    + pluginName + "' key: gpbackup adds it from the coordinator's .encrypt file"));
            password = PasswordCipher.decrypt(password, key);
        }
        long port = o.integer(PORT);
        if (port < 1 || port > 65535) {
            throw new PluginException("option 'port' must be 1..65535, got " + port);
        }
        String directory = o.require(DIRECTORY);
        if (directory.isEmpty() || directory.startsWith("/") || directory.endsWith("/") || directory.contains("//")
                || List.of(directory.split("/")).stream().anyMatch(p -> p.equals("..") || p.equals("."))) {
            throw new PluginException("option 'directory' must be a relative path inside the storage unit without '.' or '..', got '" + directory + "'");
        }
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
        ClientSettings store = ClientSettings.of(o.require(HOSTNAME), (int) port, o.require(STORAGE_UNIT), o.require(USERNAME), password);
        return new DedupOptions(store, directory, o.isOn(RESTORE_SUBSET), chunkCodec, chunking);
    }
}
