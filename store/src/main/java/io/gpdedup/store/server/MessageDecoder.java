package io.gpdedup.store.server;

import io.gpdedup.store.protocol.Frame;
import io.gpdedup.store.protocol.FrameCodec;
import io.gpdedup.store.protocol.Request;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Frame bytes (from {@link FrameDecoder}, whose buffer it then owns) to a decoded {@link Frame},
 * via the shared codec. The bytes are released once decoded, except those of an upload in
 * {@link FramePool} memory, whose payloads are views of them: that frame goes on as a
 * {@link HeldFrame}, and its bytes with it.
 */
final class MessageDecoder extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf bytes)) {
            ctx.fireChannelRead(msg);
            return;
        }
        Frame frame;
        try {
            if (ProtocolErrorHandler.failed(ctx.channel())) {
                bytes.release();
                return;
            }
            frame = FrameCodec.decode(bytes.nioBuffer());
        } catch (RuntimeException e) {
            bytes.release();
            throw e;
        }
        if (FramePool.owns(bytes) && frame.message() instanceof Request.PutChunks) {
            ctx.fireChannelRead(new HeldFrame(frame, bytes));
        } else {
            bytes.release();
            ctx.fireChannelRead(frame);
        }
    }
}
