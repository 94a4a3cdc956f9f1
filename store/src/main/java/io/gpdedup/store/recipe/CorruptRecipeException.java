package io.gpdedup.store.recipe;

/** A recipe file failed its structural or checksum check. */
public final class CorruptRecipeException extends Exception {
    private static final long serialVersionUID = 1L;

    CorruptRecipeException(String message) {
        super(message);
    }
}
