package io.gpdedup.store.chunk;

/** A committed object: its name ({@code <directory>/backups/<date>/<timestamp>/<file>} within the unit), length and commit time. */
public record ObjectInfo(String name, long length, long committedAtMillis) {
}
