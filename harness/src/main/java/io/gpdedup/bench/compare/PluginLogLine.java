package io.gpdedup.bench.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What the dedup plugin logs for one {@code backup_data}:
 * {@code backup_data <object>: N bytes in C chunks, K new (B bytes, S sent)}.
 *
 * @param object the object name in the storage unit
 * @param bytes stream length
 * @param chunks chunks in the recipe
 * @param newChunks chunks the store lacked
 * @param newBytes their uncompressed bytes
 * @param sentBytes their bytes as sent (compressed chunk payloads only)
 */
record PluginLogLine(String object, long bytes, long chunks, long newChunks, long newBytes, long sentBytes) {
    private static final Pattern LINE = Pattern.compile(
            "backup_data (\\S+): (\\d+) bytes in (\\d+) chunks, (\\d+) new \\((\\d+) bytes, (\\d+) sent\\)");

    /** The figures of {@code line}, if it is such a line. */
    public static Optional<PluginLogLine> parse(String line) {
        Matcher m = LINE.matcher(line);
        if (!m.find()) {
            return Optional.empty();
        }
        return Optional.of(new PluginLogLine(m.group(1), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)),
                Long.parseLong(m.group(4)), Long.parseLong(m.group(5)), Long.parseLong(m.group(6))));
    }

    /** The last line in any log file of {@code logDirectory} about an object whose name ends with {@code suffix}. */
    public static Optional<PluginLogLine> last(Path logDirectory, String suffix) throws IOException {
        PluginLogLine found = null;
        List<Path> logs;
        try (Stream<Path> s = Files.list(logDirectory)) {
            logs = s.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().toList();
        }
        for (Path log : logs) {
            for (String line : Files.readAllLines(log)) {
                Optional<PluginLogLine> l = parse(line);
                if (l.isPresent() && l.get().object().endsWith(suffix)) {
                    found = l.get();
                }
            }
        }
        return Optional.ofNullable(found);
    }
}
