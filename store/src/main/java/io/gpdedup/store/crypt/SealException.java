package io.gpdedup.store.crypt;

import java.io.IOException;

/** A sealed blob (an index snapshot, a recipe file) does not authenticate: damaged, cut or tampered with. */
public final class SealException extends IOException {
    private static final long serialVersionUID = 1L;

    SealException(String message) {
        super(message);
    }
}
