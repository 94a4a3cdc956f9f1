package io.gpdedup.pg;

import java.util.List;

/**
 * What one backup did. {@code bytes} counts the COPY output handed to the plugin (CSV text);
 * {@code dedup} is what the dedup plugin logged for the same backup (null for other plugins).
 */
public record BackupResult(String label, String timestamp, String mode, int workers, int tables, int emptyTables,
        long rows, long bytes, double seconds, List<String> deferredTables, PluginLogStats.Totals dedup) {

    public double megabytesPerSecond() {
        return seconds <= 0 ? 0 : bytes / 1e6 / seconds;
    }

    BackupResult withDedup(PluginLogStats.Totals totals) {
        return new BackupResult(label, timestamp, mode, workers, tables, emptyTables, rows, bytes, seconds, deferredTables, totals);
    }

    BackupResult withLabel(String newLabel) {
        return new BackupResult(newLabel, timestamp, mode, workers, tables, emptyTables, rows, bytes, seconds, deferredTables, dedup);
    }
}
