package io.gpdedup.store.net;

import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.ProtocolVersions;
import io.gpdedup.protocol.wire.Reply;
import io.gpdedup.protocol.wire.Request;
import io.gpdedup.protocol.wire.StoreProtocolException;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;
import java.util.OptionalInt;

/** First frame: HELLO; picks the protocol version, announces the limits, then leaves the pipeline. */
public final class HandshakeHandler extends ChannelInboundHandlerAdapter {
    /** The version agreed on a connection: requests of later versions are refused on it. */
    public static final AttributeKey<Integer> VERSION = AttributeKey.valueOf("gpdedup.protocol.version");

    private final int maxFrame;
    private final int maxBatch;

    HandshakeHandler(int maxFrame, int maxBatch) {
        this.maxFrame = maxFrame;
        this.maxBatch = maxBatch;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Frame frame = (Frame) msg;
        if (!(frame.message() instanceof Request.Hello hello)) {
            throw new StoreProtocolException(ErrorCode.PROTOCOL_VIOLATION, "expected HELLO first, got " + frame.type());
        }
        OptionalInt version = ProtocolVersions.choose(hello.versions());
        if (version.isEmpty()) {
            throw new StoreProtocolException(ErrorCode.UNSUPPORTED_VERSION,
                    "no common protocol version: client offers " + hello.versions() + ", server speaks " + ProtocolVersions.SUPPORTED);
        }
        ctx.channel().attr(VERSION).set(version.getAsInt());
        ctx.channel().writeAndFlush(Frame.of(frame.requestId(), new Reply.HelloOk(version.getAsInt(), maxFrame, maxBatch)));
        ctx.pipeline().remove(this);
    }
}
