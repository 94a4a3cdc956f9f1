package io.gpdedup.store.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.gpdedup.store.crypt.KeySource;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The config's {@code encryption:} block (docs/store.md): where the key-encryption key comes from,
 * a key file or a command that prints one. Only where: the key is read when the store opens its
 * units, so a reload of the config never runs the command.
 */
final class EncryptionSection {

    /** The block as written: exactly one of the two keys. */
    static final class EncryptionFile {
        @JsonProperty("key-file") String keyFile;
        /** A program and its arguments: a list, or one line split at spaces (never run through a shell). */
        @JsonProperty("key-command") JsonNode keyCommand;
    }

    private EncryptionSection() {
    }

    /** Where the key comes from, or {@code null} when the block is absent; relative paths against {@code base}. */
    static KeySource parse(EncryptionFile f, String source, Path base) {
        if (f == null) {
            return null;
        }
        if ((f.keyFile == null) == (f.keyCommand == null || f.keyCommand.isNull())) {
            throw new ConfigLoader.ConfigException("config " + source + ": encryption takes one of key-file and key-command");
        }
        if (f.keyFile != null) {
            if (f.keyFile.isBlank()) {
                throw new ConfigLoader.ConfigException("config " + source + ": encryption.key-file is empty");
            }
            return new KeySource(StorePaths.resolve(f.keyFile, base), null);
        }
        List<String> args = new ArrayList<>();
        if (f.keyCommand.isTextual()) {
            for (String a : f.keyCommand.asText().strip().split("\\s+")) {
                if (!a.isEmpty()) {
                    args.add(a);
                }
            }
        } else if (f.keyCommand.isArray()) {
            for (JsonNode a : f.keyCommand) {
                if (!a.isTextual() && !a.isNumber()) {
                    throw new ConfigLoader.ConfigException("config " + source + ": encryption.key-command: each argument must be a plain value");
                }
                args.add(a.asText());
            }
        } else {
            throw new ConfigLoader.ConfigException("config " + source + ": encryption.key-command must be a command line or a list of arguments");
        }
        if (args.isEmpty() || args.get(0).isBlank()) {
            throw new ConfigLoader.ConfigException("config " + source + ": encryption.key-command is empty");
        }
        return new KeySource(null, args);
    }
}
