package io.gpdedup.store.server;

import io.gpdedup.store.protocol.FrameCodec;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import java.util.List;

/** Frame bytes to a decoded {@link io.gpdedup.store.protocol.Frame}, via the shared codec. */
final class MessageDecoder extends MessageToMessageDecoder<ByteBuf> {
    MessageDecoder() {
        super(ByteBuf.class);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf frame, List<Object> out) {
        if (ProtocolErrorHandler.failed(ctx.channel())) {
            return;
        }
        // The codec copies what it keeps (payloads), so the buffer is released when this returns.
        out.add(FrameCodec.decode(frame.nioBuffer()));
    }
}
