package io.gpdedup.store.recipe;

import io.gpdedup.protocol.model.RetentionLock;

/** A delete or a replacement refused because committed objects are under a retention lock. */
public final class ObjectsLockedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int objects;
    private final transient RetentionLock latest;

    ObjectsLockedException(String message, int objects, RetentionLock latest) {
        super(message);
        this.objects = objects;
        this.latest = latest;
    }

    /** How many of the objects asked for are locked. */
    public int objects() {
        return objects;
    }

    /** The lock that ends last among them: when the refused delete could go through. */
    public RetentionLock latest() {
        return latest;
    }
}
