package io.gpdedup.pg;

/** What one restore did; {@code bytes} is the COPY input read from the plugin. */
public record RestoreResult(String label, String timestamp, String mode, int workers, int tables, long rows, long bytes,
        double seconds, boolean subset) {
    public double megabytesPerSecond() {
        return seconds <= 0 ? 0 : bytes / 1e6 / seconds;
    }
}
