package io.gpdedup.store.container;

/** New chunk data would eat into the disk reserve ({@link DiskSpace}); nothing was written. */
public final class DiskFullException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    DiskFullException(String message) {
        super(message);
    }
}
