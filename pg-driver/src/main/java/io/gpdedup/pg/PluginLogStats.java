package io.gpdedup.pg;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Sums what gpbackup_dedup_plugin logged per {@code backup_data} call for one backup timestamp:
 * {@code backup_data <object>: N bytes in C chunks, K new (B bytes, S sent)}. The plugin's log is
 * the only place that knows how much crossed the wire.
 */
public final class PluginLogStats {
    private static final Pattern LINE = Pattern.compile(
            "backup_data (\\S+): (\\d+) bytes in (\\d+) chunks, (\\d+) new \\((\\d+) bytes, (\\d+) sent\\)");

    private PluginLogStats() {
    }

    /** Totals of one backup: logical bytes, chunks, new chunks and bytes, bytes sent (after compression). */
    public record Totals(int calls, long logicalBytes, long chunks, long newChunks, long newBytes, long sentBytes) {
        /** Logical bytes per byte the store had to take in (before compression). */
        public double dedupRatio() {
            return newBytes == 0 ? Double.POSITIVE_INFINITY : (double) logicalBytes / newBytes;
        }
    }

    /** Totals for backup {@code timestamp} from the {@code *.log} files in {@code logDirectory}; zero calls when none matched. */
    public static Totals forBackup(Path logDirectory, String timestamp) throws IOException {
        String marker = "/" + timestamp + "/";
        int calls = 0;
        long logical = 0;
        long chunks = 0;
        long newChunks = 0;
        long newBytes = 0;
        long sent = 0;
        if (!Files.isDirectory(logDirectory)) {
            return new Totals(0, 0, 0, 0, 0, 0);
        }
        List<Path> logs;
        try (Stream<Path> files = Files.list(logDirectory)) {
            logs = files.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().toList();
        }
        for (Path log : logs) {
            for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                if (!line.contains(marker)) {
                    continue;
                }
                Matcher m = LINE.matcher(line);
                if (m.find() && m.group(1).contains(marker)) {
                    calls++;
                    logical += Long.parseLong(m.group(2));
                    chunks += Long.parseLong(m.group(3));
                    newChunks += Long.parseLong(m.group(4));
                    newBytes += Long.parseLong(m.group(5));
                    sent += Long.parseLong(m.group(6));
                }
            }
        }
        return new Totals(calls, logical, chunks, newChunks, newBytes, sent);
    }
}
