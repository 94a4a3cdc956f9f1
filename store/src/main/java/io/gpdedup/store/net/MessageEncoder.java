package io.gpdedup.store.net;

import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.FrameCodec;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.util.List;

/**
 * A {@link Frame} to its bytes on the wire, via the shared codec, written straight into a
 * {@link FramePool} buffer: a heap array would be zeroed when allocated and copied into direct
 * memory again by the socket (a sixth of the event loop in a restore). Netty releases it once
 * written.
 */
final class MessageEncoder extends MessageToMessageEncoder<Frame> {
    MessageEncoder() {
        super(Frame.class);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Frame frame, List<Object> out) {
        int length = FrameCodec.LENGTH_FIELD + FrameCodec.frameLength(frame);
        ByteBuf bytes = FramePool.take(length);
        try {
            FrameCodec.encode(frame, bytes.nioBuffer(0, length));
        } catch (RuntimeException e) {
            bytes.release();
            throw e;
        }
        out.add(bytes.writerIndex(length));
    }
}
