package io.gpdedup.client;

/**
 * A copy that cannot go on; {@link #permanent()} when trying again cannot help (the backup is gone
 * from the source, or the remote holds other data under its names).
 */
public final class ReplicationException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final boolean permanent;

    ReplicationException(String message, boolean permanent) {
        super(message);
        this.permanent = permanent;
    }

    public boolean permanent() {
        return permanent;
    }
}
