package io.gpdedup.protocol.wire;

/**
 * A message of the protocol. Each message's record describes its body on the wire once
 * (docs/protocol.md section 4), as its {@code BODY}; {@link MessageType} pairs the record and its
 * body with a type code. Adding a message is its record and its line in {@link MessageType}, plus
 * its forms in the tests (FrameCodecTest, GoldenFramesTest).
 */
public sealed interface Message permits Request, Reply {
    default MessageType type() {
        return MessageType.of(this);
    }
}
