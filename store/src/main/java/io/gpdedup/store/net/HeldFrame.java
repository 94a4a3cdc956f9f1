package io.gpdedup.store.net;

import io.gpdedup.protocol.wire.Frame;
import io.netty.buffer.ByteBuf;

/**
 * An upload whose chunk payloads are views of the pooled bytes it was decoded from: whoever takes it
 * calls {@link #release()} once nothing reads the payloads any more, and exactly once.
 */
record HeldFrame(Frame frame, ByteBuf bytes, FrameMemory.Account memory) {
    void release() {
        memory.release(bytes);
    }
}
