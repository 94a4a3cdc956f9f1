package io.gpdedup.store.server;

import io.gpdedup.store.protocol.FrameCodec;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Frame bytes (from {@link FrameDecoder}) to a decoded {@link io.gpdedup.store.protocol.Frame}, via
 * the shared codec. Upload payloads stay views of the frame's array, which nothing reuses.
 */
final class MessageDecoder extends MessageToMessageDecoder<ByteBuffer> {
    MessageDecoder() {
        super(ByteBuffer.class);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuffer frame, List<Object> out) {
        if (ProtocolErrorHandler.failed(ctx.channel())) {
            return;
        }
        out.add(FrameCodec.decode(frame));
    }
}
