package io.gpdedup.store.protocol;

/** A decoded message: pure data; {@link FrameCodec} knows its bytes. */
public sealed interface Message permits Request, Reply {
    MessageType type();
}
