package io.gpdedup.plugin.agent;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;

/**
 * Writes whole frames, header and payload in one gathering write. Synchronized: a command's stdout,
 * its stderr and the stdin requests may come from different threads of one call.
 */
final class FrameWriter {
    private static final byte[] NONE = new byte[0];

    private final GatheringByteChannel channel;
    private final ByteBuffer header = ByteBuffer.allocate(FrameType.HEADER_BYTES);
    private final ByteBuffer[] both = new ByteBuffer[2];

    FrameWriter(GatheringByteChannel channel) {
        this.channel = channel;
    }

    void write(FrameType type) throws IOException {
        write(type, NONE, 0, 0);
    }

    void write(FrameType type, byte[] b) throws IOException {
        write(type, b, 0, b.length);
    }

    synchronized void write(FrameType type, byte[] b, int off, int len) throws IOException {
        if (len > type.maxLength) {
            throw new IllegalArgumentException(type + " payload of " + len + " bytes exceeds " + type.maxLength);
        }
        header.clear();
        header.put(type.code).putInt(len).flip();
        both[0] = header;
        both[1] = ByteBuffer.wrap(b, off, len);
        while (both[1].hasRemaining() || header.hasRemaining()) {
            channel.write(both);
        }
        both[1] = null;
    }

    void writeInt(FrameType type, int value) throws IOException {
        write(type, ByteBuffer.allocate(4).putInt(value).array());
    }
}
