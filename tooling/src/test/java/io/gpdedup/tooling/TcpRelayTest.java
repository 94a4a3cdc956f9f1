package io.gpdedup.tooling;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The relay passes bytes both ways unchanged and from its own address. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TcpRelayTest {
    @Test
    void relaysBothWaysFromItsAddress() throws Exception {
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        try (ServerSocket echo = new ServerSocket(0, 10, loopback)) {
            CompletableFuture<InetAddress> peer = CompletableFuture.supplyAsync(() -> {
                try (Socket s = echo.accept()) {
                    s.getInputStream().transferTo(s.getOutputStream());
                    return s.getInetAddress();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            try (TcpRelay relay = TcpRelay.start(loopback, new InetSocketAddress(loopback, echo.getLocalPort()));
                 Socket client = new Socket(loopback, relay.port())) {
                byte[] sent = new byte[300_000];
                new SplittableRandom(3).nextBytes(sent);
                CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                    try {
                        OutputStream out = client.getOutputStream();
                        out.write(sent);
                        client.shutdownOutput();
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                InputStream in = client.getInputStream();
                byte[] back = in.readAllBytes();
                writer.join();
                assertArrayEquals(sent, back);
                assertEquals(loopback, peer.get(10, TimeUnit.SECONDS), "the store sees the relay's address");
            }
        }
    }

    @Test
    void refusesAnAddressThatIsNotLoopback() throws Exception {
        assertThrows(IllegalArgumentException.class,
                () -> TcpRelay.start(InetAddress.getByName("192.0.2.1"), new InetSocketAddress("127.0.0.1", 1)));
    }
}
