package io.gpdedup.store.server;

import io.gpdedup.store.protocol.Frame;
import io.gpdedup.store.protocol.FrameCodec;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.util.List;

/** A {@link Frame} to its bytes on the wire, via the shared codec (no copy: the buffer is wrapped). */
final class MessageEncoder extends MessageToMessageEncoder<Frame> {
    MessageEncoder() {
        super(Frame.class);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Frame frame, List<Object> out) {
        out.add(Unpooled.wrappedBuffer(FrameCodec.encode(frame)));
    }
}
