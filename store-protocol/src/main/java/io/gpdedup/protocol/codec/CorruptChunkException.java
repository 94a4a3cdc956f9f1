package io.gpdedup.protocol.codec;

/** A chunk payload does not decode to the length it claims; the message names what was found. */
public final class CorruptChunkException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CorruptChunkException(String message) {
        super(message);
    }
}
