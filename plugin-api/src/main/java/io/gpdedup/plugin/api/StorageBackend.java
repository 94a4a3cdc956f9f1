package io.gpdedup.plugin.api;

import io.gpdedup.protocol.naming.BackupTimestamp;
import io.gpdedup.protocol.naming.RemoteName;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.Optional;

/**
 * What a plugin does with bytes. The dispatcher has already parsed and checked every argument;
 * implementations only store and fetch. Every call may run concurrently with others, in other
 * processes, on the same store.
 */
public interface StorageBackend extends AutoCloseable {
    /** Setup and cleanup hooks; gpbackup may call them concurrently, so they must be idempotent. */
    void hook(Hook hook) throws IOException;

    /**
     * Stores {@code in} until EOF; the object becomes visible only if the whole stream was stored.
     * backup_file goes through here too, with the local file as the stream.
     */
    void backupData(RemoteName name, InputStream in) throws IOException;

    /** Opens a stored object, failing if it does not exist. */
    StoredData openData(RemoteName name) throws IOException;

    /** Removes every object of backup {@code timestamp} and nothing else. */
    void deleteBackup(BackupTimestamp timestamp) throws IOException;

    /** Lists objects under {@code directory} (or everything), one {@code name size} line each. */
    void listDirectory(Optional<RemoteDirectory> directory, PrintStream out) throws IOException;

    void deleteDirectory(RemoteDirectory directory) throws IOException;

    @Override
    default void close() throws IOException {
    }
}
