package io.gpdedup.store.net;

import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.FrameCodec;
import io.gpdedup.protocol.wire.Request;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Frame bytes (from {@link FrameDecoder}, whose buffer it then owns) to a decoded {@link Frame},
 * via the shared codec. The bytes are released once decoded, except those of an upload in
 * {@link FramePool} memory, whose payloads are views of them: that frame goes on as a
 * {@link HeldFrame}, and its bytes (and their count in the connection's {@link FrameMemory}) with it.
 */
final class MessageDecoder extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf bytes)) {
            ctx.fireChannelRead(msg);
            return;
        }
        FrameMemory.Account memory = FramePool.owns(bytes) ? ctx.channel().attr(FrameMemory.ACCOUNT).get() : null;
        Frame frame;
        try {
            if (ProtocolErrorHandler.failed(ctx.channel())) {
                release(bytes, memory);
                return;
            }
            frame = FrameCodec.decode(bytes.nioBuffer());
        } catch (RuntimeException e) {
            release(bytes, memory);
            throw e;
        }
        if (memory != null && frame.message() instanceof Request.PutChunks) {
            ctx.fireChannelRead(new HeldFrame(frame, bytes, memory));
        } else {
            release(bytes, memory);
            ctx.fireChannelRead(frame);
        }
    }

    private static void release(ByteBuf bytes, FrameMemory.Account memory) {
        if (memory == null) {
            bytes.release();
        } else {
            memory.release(bytes);
        }
    }
}
