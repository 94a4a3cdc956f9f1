package io.gpdedup.bench.runner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/** Writes the gpbackup plugin config (executablepath + options) that points the dedup plugin at a store. */
final class PluginConfigFile {
    public static final String DIRECTORY = "bench";

    private PluginConfigFile() {
    }

    /** Writes {@code file} (owner-only: it holds the password) and returns it. */
    public static Path write(Path file, Path plugin, String host, int port, String unit, String user, String password,
            boolean restoreSubset) throws IOException {
        List<String> lines = List.of(
                "executablepath: " + plugin.toAbsolutePath(),
                "options:",
                "  hostname: \"" + host + "\"",
                "  port: \"" + port + "\"",
                "  username: \"" + user + "\"",
                "  password: \"" + password + "\"",
                "  storage_unit: \"" + unit + "\"",
                "  directory: \"" + DIRECTORY + "\"",
                "  restore_subset: \"" + (restoreSubset ? "on" : "off") + "\"");
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(file, lines, StandardCharsets.UTF_8);
        return file;
    }
}
