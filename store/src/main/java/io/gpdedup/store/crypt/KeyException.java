package io.gpdedup.store.crypt;

/**
 * The key-encryption key cannot be had (its file is unreadable or not a key file, its command
 * failed) or does not open a unit's data keys: a setting to fix, reported in one line before
 * anything is written.
 */
public final class KeyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public KeyException(String message) {
        super(message);
    }
}
