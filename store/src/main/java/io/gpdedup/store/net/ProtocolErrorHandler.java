package io.gpdedup.store.net;

import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.Reply;
import io.gpdedup.protocol.wire.StoreProtocolException;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.util.AttributeKey;
import java.io.IOException;

/**
 * Last in the pipeline: a broken protocol gets one ERROR frame (request id 0) and the connection
 * is closed once it is written; nothing more is read or decoded. Transport errors just close.
 */
public final class ProtocolErrorHandler extends ChannelInboundHandlerAdapter {
    private static final System.Logger LOG = System.getLogger(ProtocolErrorHandler.class.getName());
    private static final AttributeKey<Boolean> FAILED = AttributeKey.valueOf("gpdedup.failed");

    static boolean failed(Channel channel) {
        return channel.hasAttr(FAILED);
    }

    /** Sends a fatal error and closes; used for AUTH_FAILED as well as for broken frames. */
    public static void fail(Channel channel, ErrorCode code, String message) {
        if (channel.attr(FAILED).setIfAbsent(Boolean.TRUE) != null) {
            return;
        }
        channel.config().setAutoRead(false);
        channel.writeAndFlush(Frame.of(0, new Reply.Error(code, message))).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable e = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (e instanceof StoreProtocolException pe) {
            LOG.log(System.Logger.Level.INFO, "closing " + ctx.channel().remoteAddress() + ": " + pe.code() + ": " + pe.getMessage());
            fail(ctx.channel(), pe.code(), pe.getMessage());
        } else if (e instanceof IOException) {
            LOG.log(System.Logger.Level.DEBUG, "connection " + ctx.channel().remoteAddress() + " failed: " + e);
            ctx.close();
        } else {
            LOG.log(System.Logger.Level.ERROR, "unexpected failure on " + ctx.channel().remoteAddress(), e);
            fail(ctx.channel(), ErrorCode.INTERNAL, "server error: " + e);
        }
    }
}
