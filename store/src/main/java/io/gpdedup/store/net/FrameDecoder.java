package io.gpdedup.store.net;

import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.protocol.wire.FrameCodec;
import io.gpdedup.protocol.wire.StoreProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.nio.ByteBuffer;

/**
 * Cuts the byte stream into frames (the bytes after each length field), enforcing the max frame
 * length: small until the client has authenticated, then the configured one. After a bad length
 * there is no telling where the next frame starts, so everything after it is discarded.
 *
 * <p>Each frame is filled straight from the socket's read buffers into a buffer of its exact size,
 * allocated as soon as its length field is in: one copy per byte, where a cumulating decoder copies
 * a frame of many reads again each time its buffer doubles. Before login that buffer is a plain
 * array; after it, a {@link FramePool} buffer, since a fresh array of megabytes for every upload
 * cost a fifth of the event loop in zeroing and page faults, counted in the connection's
 * {@link FrameMemory.Account} (at its cap the connection fails). Each whole frame is handed on, and
 * with it the duty to release it, to {@link MessageDecoder}.
 */
public final class FrameDecoder extends ChannelInboundHandlerAdapter {
    private int maxFrameLength = FrameCodec.PRE_AUTH_MAX_FRAME;
    /** Where the frames of a logged-in connection come from; null before login. */
    private FrameMemory.Account pooled;
    private boolean failed;
    /** The length field while it arrives in pieces. */
    private final ByteBuffer lengthField = ByteBuffer.allocate(FrameCodec.LENGTH_FIELD);
    /** The frame being filled, null between frames. */
    private ByteBuf frame;

    /**
     * Called on the event loop once the client has authenticated; false, and nothing changed, when
     * a frame has begun arriving: the client sent it before it could have seen AUTH_OK.
     */
    public boolean allowFramesUpTo(int maxFrameLength, FrameMemory.Account memory) {
        if (frame != null || lengthField.position() > 0) {
            return false;
        }
        this.maxFrameLength = maxFrameLength;
        this.pooled = memory;
        return true;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf in)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            while (!failed && in.isReadable()) {
                if (frame == null && !startFrame(in)) {
                    return;
                }
                frame.writeBytes(in, Math.min(frame.writableBytes(), in.readableBytes()));
                if (!frame.isWritable()) {
                    ByteBuf whole = frame;
                    frame = null;
                    ctx.fireChannelRead(whole);
                }
            }
        } finally {
            in.release();
        }
    }

    /** Reads (the rest of) a length field; allocates the frame once it is complete. */
    private boolean startFrame(ByteBuf in) {
        while (lengthField.hasRemaining() && in.isReadable()) {
            lengthField.put(in.readByte());
        }
        if (lengthField.hasRemaining()) {
            return false;
        }
        long length = Integer.toUnsignedLong(lengthField.flip().getInt());
        lengthField.clear();
        if (length < FrameCodec.HEADER) {
            throw fail(ErrorCode.MALFORMED_FRAME, "frame length " + length + " is below the " + FrameCodec.HEADER + "-byte header");
        }
        if (length > maxFrameLength) {
            throw fail(ErrorCode.FRAME_TOO_LARGE, "frame length " + length + " is above the maximum of " + maxFrameLength
                    + (maxFrameLength == FrameCodec.PRE_AUTH_MAX_FRAME ? " before authentication" : ""));
        }
        int n = (int) length;
        if (pooled == null) {
            frame = Unpooled.buffer(n, n);
        } else {
            try {
                frame = pooled.take(n);
            } catch (StoreProtocolException atCap) {
                failed = true;
                throw atCap;
            }
        }
        return true;
    }

    private StoreProtocolException fail(ErrorCode code, String message) {
        failed = true;
        return new StoreProtocolException(code, message);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (frame != null) {
            if (pooled != null && FramePool.owns(frame)) {
                pooled.release(frame);
            } else {
                frame.release();
            }
            frame = null;
        }
    }
}
