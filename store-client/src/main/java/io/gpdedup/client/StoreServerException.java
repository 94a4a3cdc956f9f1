package io.gpdedup.client;

import io.gpdedup.protocol.wire.ErrorCode;

/** The server answered with an error; {@link #code()} says which kind (docs/protocol.md section 5). */
public class StoreServerException extends StoreClientException {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;

    StoreServerException(ErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }
}
