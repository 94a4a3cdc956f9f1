package io.gpdedup.plugin.api;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Keeps "exit status 0" and "backup visible" the same thing for a plugin process. gpbackup (or
 * COPY) stops a plugin with SIGTERM or SIGINT and then closes its stdin; the main thread may see
 * that EOF and commit a truncated stream while the JVM is already shutting down. So in a plugin
 * process every commit registers how to undo it, the shutdown hook undoes them, and a normal exit
 * halts the JVM under the same lock, so exactly one of the two happens. In the host agent no
 * commit is undone: a caller that disappears never gets as far as a commit (its stdin fails).
 */
public final class CommitGate {
    private static final ReentrantReadWriteLock LOCK = new ReentrantReadWriteLock();
    private static final List<Undo> UNDO = new ArrayList<>();
    private static boolean stopping;
    private static boolean processMode;

    /** Makes an object visible: a rename, or the store request that commits a recipe. */
    @FunctionalInterface
    public interface Commit {
        void run() throws IOException;
    }

    /** Takes a committed object away again. */
    @FunctionalInterface
    public interface Undo {
        void run() throws IOException;
    }

    private CommitGate() {
    }

    /** For a plugin process: commits become undoable and a signal undoes them. Call once, from main. */
    static void installForProcess() {
        LOCK.writeLock().lock();
        try {
            processMode = true;
        } finally {
            LOCK.writeLock().unlock();
        }
        Runtime.getRuntime().addShutdownHook(new Thread(CommitGate::stopAndUndo, "gpdedup-commit-gate"));
    }

    public static void commit(Commit commit, Undo undo) throws IOException {
        LOCK.readLock().lock();
        try {
            if (stopping) {
                throw new PluginException("the plugin is being stopped: the backup was not committed");
            }
            commit.run();
            if (processMode) {
                synchronized (UNDO) {
                    UNDO.add(undo);
                }
            }
        } finally {
            LOCK.readLock().unlock();
        }
    }

    /**
     * Ends a plugin process with {@code status}, unless a signal got there first (then the shutdown
     * hook undoes this process's commits and the JVM exits with the signal's status).
     */
    public static void exit(int status) {
        LOCK.writeLock().lock();
        if (!stopping) {
            Runtime.getRuntime().halt(status);
        }
        LOCK.writeLock().unlock();
        // Shutdown is under way in another thread and decides the exit status.
        Runtime.getRuntime().exit(status);
    }

    static void stopAndUndo() {
        LOCK.writeLock().lock();
        try {
            stopping = true;
            synchronized (UNDO) {
                for (Undo u : UNDO) {
                    try {
                        u.run();
                    } catch (IOException | RuntimeException e) {
                        // best effort: the process is dying; the object stays, which the log shows
                    }
                }
                UNDO.clear();
            }
        } finally {
            LOCK.writeLock().unlock();
        }
    }
}
