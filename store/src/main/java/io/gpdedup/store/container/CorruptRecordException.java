package io.gpdedup.store.container;

/** A container record failed its structural or checksum check. */
public final class CorruptRecordException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CorruptRecordException(String message) {
        super(message);
    }
}
