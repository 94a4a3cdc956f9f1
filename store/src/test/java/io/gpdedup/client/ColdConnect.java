package io.gpdedup.client;

/**
 * Not a test: what a fresh JVM (the plugin's situation) pays to connect, log in and ping once.
 * {@code java -cp <classpath> io.gpdedup.client.ColdConnect HOST PORT UNIT USER PASSWORD}
 */
public final class ColdConnect {
    public static void main(String[] args) {
        long start = System.nanoTime();
        try (StoreClient c = StoreClient.connect(ClientSettings.of(args[0], Integer.parseInt(args[1]), args[2], args[3], args[4]))) {
            long connected = System.nanoTime();
            c.ping();
            long pinged = System.nanoTime();
            System.out.printf(java.util.Locale.ROOT, "connect+login %.1f ms, first ping %.2f ms%n", (connected - start) / 1e6, (pinged - connected) / 1e6);
        }
    }
}
