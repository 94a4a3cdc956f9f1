package io.gpdedup.store.tls;

import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.FrameCodec;
import io.gpdedup.protocol.wire.Reply;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;

/**
 * The server side of TLS. {@link #gate()} goes first in a connection's pipeline: it looks at the
 * first bytes, puts an {@link SslHandler} in its place for a TLS client, and for a plain-text
 * client either steps aside (TLS optional) or answers one plain {@code ERROR} frame saying TLS is
 * required and closes, so that an old client fails with a message rather than a reset.
 */
public final class ServerTls {
    /** A TLS record header is 5 bytes; fewer cannot be classified. */
    private static final int SNIFF_BYTES = 5;

    private final SslContext context;
    private final boolean required;

    private ServerTls(SslContext context, boolean required) {
        this.context = context;
        this.required = required;
    }

    /**
     * Loads the PEM certificate and key. Fails with the file and the reason when either is
     * missing or unreadable, so a bad path stops the start rather than the first connection.
     */
    public static ServerTls load(TlsSettings settings) throws IOException {
        for (var file : List.of(settings.certFile(), settings.keyFile())) {
            if (!Files.isReadable(file)) {
                throw new IOException("TLS file " + file + " does not exist or is not readable");
            }
        }
        try {
            SslContext ctx = SslContextBuilder.forServer(settings.certFile().toFile(), settings.keyFile().toFile())
                    .sslProvider(SslProvider.JDK)
                    .protocols("TLSv1.3", "TLSv1.2")
                    .build();
            return new ServerTls(ctx, settings.required());
        } catch (IOException | RuntimeException e) {
            throw new IOException("cannot use TLS certificate " + settings.certFile() + " with key " + settings.keyFile()
                    + ": " + e.getMessage() + " (the key must be an unencrypted PKCS#8 PEM, BEGIN PRIVATE KEY)", e);
        }
    }

    public boolean required() {
        return required;
    }

    /** A new gate for one connection (it is stateful: not sharable). */
    public ChannelHandler gate() {
        return new Gate();
    }

    private final class Gate extends ByteToMessageDecoder {
        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            if (in.readableBytes() < SNIFF_BYTES) {
                return;
            }
            if (SslHandler.isEncrypted(in, false)) {
                ctx.pipeline().replace(this, "tls", context.newHandler(ctx.alloc()));
            } else if (required) {
                in.skipBytes(in.readableBytes());
                ctx.channel().config().setAutoRead(false);
                ByteBuf refusal = Unpooled.wrappedBuffer(FrameCodec.encode(Frame.of(0,
                        new Reply.Error(ErrorCode.PROTOCOL_VIOLATION, "this gpdedup-store requires TLS: set tls: on in the plugin config"))));
                // Written below this handler so that nothing of the pipeline (encoder, handlers) sees it.
                ctx.writeAndFlush(refusal).addListener(ChannelFutureListener.CLOSE);
            } else {
                ctx.pipeline().remove(this);
            }
        }
    }
}
