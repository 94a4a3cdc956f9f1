package io.gpdedup.bench.compare;

import java.nio.file.Path;

/**
 * One table version written to disk: what every tool reads from stdin for one backup step.
 *
 * @param step short name of the backup step that reads it ({@code base}, {@code clustered}, ...)
 * @param label what changed since the previous version, for reports
 * @param length bytes in the file
 * @param sha256 lowercase hex SHA-256 of the file, what a restore must give back
 * @param leastNewBytes bytes of COPY text of rows the previous version does not hold (the whole
 *     file for the first version): the least any deduplicating tool must take in, before compression
 */
record StreamFile(String step, String label, Path path, long length, String sha256, long leastNewBytes) {
}
