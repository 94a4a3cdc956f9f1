package io.gpdedup.bench.compare;

import java.io.IOException;

/**
 * One backup program under comparison, on a repository of its own. Setting it up (creating a
 * repository, starting a server) is not timed; every backup and restore is, from process start
 * to exit.
 */
interface BackupTool extends AutoCloseable {
    /** Short name for tables: gpdedup, restic, borg. */
    String name();

    /** The program's version as it reports it. */
    String version() throws IOException;

    /** What is not a default in how it runs here, and why, for the report. */
    String settings();

    /** Creates the repository (and starts whatever serves it). */
    void open() throws IOException;

    /** Backs up {@code stream} from stdin under the new name {@code snapshot}. */
    StepResult backup(StreamFile stream, String snapshot) throws IOException;

    /** Restores {@code snapshot} to a hashing sink. */
    StepResult restore(String snapshot) throws IOException;

    /**
     * CPU so far of the processes that serve this tool's calls and outlive them (gpdedup: the
     * store and the host agent), in ns; 0 for tools that run nothing between commands.
     */
    default long serviceCpuNanos() throws IOException {
        return 0;
    }

    /** What a tool's background work after a backup cost: its service's CPU and the wait, in ns. */
    record Quiet(long cpuNanos, long wallNanos) {
    }

    /**
     * Waits until the work the tool does by itself after a backup (gpdedup: the store's
     * recompression) is over; null for tools with none.
     */
    default Quiet awaitQuiet() throws IOException {
        return null;
    }

    /** Bytes the repository takes on disk ({@code du -sb}). */
    long repositoryBytes() throws IOException;

    @Override
    void close() throws IOException;
}
