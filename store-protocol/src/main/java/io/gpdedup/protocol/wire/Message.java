package io.gpdedup.protocol.wire;

/**
 * A message of the protocol. Each message owns its body on the wire (docs/protocol.md section 4):
 * its size and how it is written here, how it is read in the reader its {@link MessageType}
 * names. Adding a message is its record and its line in {@link MessageType}, plus its test.
 */
public sealed interface Message permits Request, Reply {
    MessageType type();

    /** Bytes of the body (above {@code Integer.MAX_VALUE} for a body no frame can hold). */
    long bodySize();

    /** Writes exactly {@link #bodySize()} bytes. */
    void writeBody(WireWriter out);
}
