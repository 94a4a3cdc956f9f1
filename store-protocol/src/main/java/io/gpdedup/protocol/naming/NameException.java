package io.gpdedup.protocol.naming;

/** A name or size written in a way gpbackup or gpdedup does not write it; the message is fit for the user. */
public final class NameException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public NameException(String message) {
        super(message);
    }
}
