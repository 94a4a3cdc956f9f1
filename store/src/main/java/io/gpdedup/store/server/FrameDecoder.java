package io.gpdedup.store.server;

import io.gpdedup.store.protocol.ErrorCode;
import io.gpdedup.store.protocol.FrameCodec;
import io.gpdedup.store.protocol.StoreProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Cuts the byte stream into frames (the bytes after each length field), enforcing the max frame
 * length: small until the client has authenticated, then the configured one. After a bad length
 * there is no telling where the next frame starts, so everything after it is discarded.
 */
final class FrameDecoder extends ByteToMessageDecoder {
    private int maxFrameLength = FrameCodec.PRE_AUTH_MAX_FRAME;
    private boolean failed;

    /** Called on the event loop once the client has authenticated. */
    void allowFramesUpTo(int maxFrameLength) {
        this.maxFrameLength = maxFrameLength;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < FrameCodec.LENGTH_FIELD) {
            return;
        }
        long length = in.getUnsignedInt(in.readerIndex());
        if (length < FrameCodec.HEADER) {
            throw fail(in, ErrorCode.MALFORMED_FRAME, "frame length " + length + " is below the " + FrameCodec.HEADER + "-byte header");
        }
        if (length > maxFrameLength) {
            throw fail(in, ErrorCode.FRAME_TOO_LARGE, "frame length " + length + " is above the maximum of " + maxFrameLength
                    + (maxFrameLength == FrameCodec.PRE_AUTH_MAX_FRAME ? " before authentication" : ""));
        }
        if (in.readableBytes() < FrameCodec.LENGTH_FIELD + length) {
            return;
        }
        in.skipBytes(FrameCodec.LENGTH_FIELD);
        out.add(in.readRetainedSlice((int) length));
    }

    private StoreProtocolException fail(ByteBuf in, ErrorCode code, String message) {
        failed = true;
        in.skipBytes(in.readableBytes());
        return new StoreProtocolException(code, message);
    }
}
