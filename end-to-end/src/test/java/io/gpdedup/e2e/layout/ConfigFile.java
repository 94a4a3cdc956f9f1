package io.gpdedup.e2e.layout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Plugin config files as gpbackup leaves them on each host: {@code /tmp/<T>_<basename>} holding
 * {@code executablepath} and a flat {@code options} map with quoted values.
 */
public final class ConfigFile {
    private ConfigFile() {
    }

    public static String render(String executablePath, Map<String, String> options) {
        StringBuilder sb = new StringBuilder();
        sb.append("executablepath: ").append(executablePath).append('\n');
        sb.append("options:\n");
        options.forEach((k, v) -> sb.append("  ").append(k).append(": ").append(quote(v)).append('\n'));
        return sb.toString();
    }

    /** Writes {@code text} to {@code <dir>/<T>_<baseName>} and returns that path. */
    public static Path write(Path dir, Timestamp t, String baseName, String text) {
        Path file = dir.resolve(t + "_" + baseName);
        try {
            Files.createDirectories(dir);
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    public static String quote(String v) {
        return "\"" + v.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
