package io.gpdedup.store.s3;

import java.io.IOException;

/** A bucket request that failed after its retries, with a message fit for an operator. */
public final class BucketException extends IOException {
    private static final long serialVersionUID = 1L;

    /** What went wrong, as far as the store must tell the cases apart. */
    public enum Kind {
        /** The bucket does not exist. */
        NO_BUCKET,
        /** The credentials are missing, wrong, or not allowed to do this. */
        DENIED,
        /** The endpoint cannot be reached (refused, unknown host, timed out). */
        UNREACHABLE,
        /** A conditional write found the object changed (or present): someone else wrote it. */
        CONFLICT,
        /** Anything else the server answered, after retries. */
        FAILED
    }

    private final Kind kind;

    public BucketException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
