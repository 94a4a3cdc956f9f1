package io.gpdedup.store.net;

import io.gpdedup.store.metrics.StoreMetrics;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

/**
 * Counts the bytes each connection reads from and hands to its socket, TLS records included: what
 * the network carries, for capacity planning and for comparing with the chunk payloads the other
 * counters report. First in every pipeline, so it sees the socket's own buffers.
 */
@ChannelHandler.Sharable
final class WireBytes extends ChannelDuplexHandler {
    private final StoreMetrics metrics;

    WireBytes(StoreMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        metrics.received(size(msg));
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        metrics.sent(size(msg));
        ctx.write(msg, promise);
    }

    private static int size(Object msg) {
        if (msg instanceof ByteBuf b) {
            return b.readableBytes();
        }
        return msg instanceof ByteBufHolder h ? h.content().readableBytes() : 0;
    }
}
