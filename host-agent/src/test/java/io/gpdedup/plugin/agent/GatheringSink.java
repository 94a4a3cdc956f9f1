package io.gpdedup.plugin.agent;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.WritableByteChannel;

/** A FrameWriter target for tests: the gathering channel it needs, over an in-memory stream. */
record GatheringSink(WritableByteChannel out) implements GatheringByteChannel {
    static GatheringSink of(OutputStream out) {
        return new GatheringSink(Channels.newChannel(out));
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        long n = 0;
        for (int i = offset; i < offset + length; i++) {
            n += out.write(srcs[i]);
        }
        return n;
    }

    @Override
    public long write(ByteBuffer[] srcs) throws IOException {
        return write(srcs, 0, srcs.length);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return out.write(src);
    }

    @Override
    public boolean isOpen() {
        return true;
    }

    @Override
    public void close() {
    }
}
