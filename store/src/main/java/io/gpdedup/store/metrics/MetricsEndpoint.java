package io.gpdedup.store.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** Serves {@link StoreMetrics} at {@code GET /metrics} with the JDK's HTTP server. */
public final class MetricsEndpoint implements AutoCloseable {
    public static final String PATH = "/metrics";

    private final HttpServer http;
    private final ExecutorService executor;

    private MetricsEndpoint(HttpServer http, ExecutorService executor) {
        this.http = http;
        this.executor = executor;
    }

    public static MetricsEndpoint start(InetSocketAddress address, StoreMetrics metrics) throws IOException {
        HttpServer http;
        try {
            http = HttpServer.create(address, 16);
        } catch (IOException e) {
            throw new IOException("cannot serve metrics on " + address.getHostString() + ":" + address.getPort() + ": " + e.getMessage(), e);
        }
        http.createContext("/", exchange -> {
            try (exchange) {
                if (!exchange.getRequestURI().getPath().equals(PATH)) {
                    send(exchange, 404, "not found: the metrics are at " + PATH + "\n", "text/plain; charset=utf-8");
                } else if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
                    send(exchange, 405, "GET only\n", "text/plain; charset=utf-8");
                } else {
                    send(exchange, 200, metrics.scrape(), "text/plain; version=0.0.4; charset=utf-8");
                }
            }
        });
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "store-metrics-http");
            t.setDaemon(true);
            return t;
        });
        http.setExecutor(executor);
        http.start();
        return new MetricsEndpoint(http, executor);
    }

    private static void send(HttpExchange exchange, int status, String body, String contentType) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    public InetSocketAddress address() {
        return http.getAddress();
    }

    @Override
    public void close() {
        http.stop(0);
        executor.shutdownNow();
    }
}
