package io.gpdedup.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.store.cli.StoreMain;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code gpdedup-store serve} in a JVM of its own on the test's classpath, run until it stops by itself. */
public final class StoreRun {
    /** The line a store writes once it listens (on loopback, as the tests' configs ask). */
    public static final Pattern LISTENING = Pattern.compile("gpdedup-store listening on 127\\.0\\.0\\.1:(\\d+)");

    /** How the process ended and what it wrote to stderr. */
    public record Result(int exit, String stderr) {
    }

    private StoreRun() {
    }

    /** The process for {@code serve --config CONFIG}, with a bucket's credentials in its environment and HOME beside the config. */
    public static ProcessBuilder serve(Path config, String identity, String credential) {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        ProcessBuilder pb = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"), StoreMain.class.getName(),
                "serve", "--config", config.toString());
        Map<String, String> env = pb.environment();
        env.put("AWS_ACCESS_KEY_ID", identity);
        env.put("AWS_SECRET_ACCESS_KEY", credential);
        env.put("HOME", config.toAbsolutePath().getParent().toString());
        return pb;
    }

    /** Starts the process and waits up to two minutes for it to stop by itself. */
    public static Result toExit(ProcessBuilder pb) throws Exception {
        Process p = pb.start();
        p.getOutputStream().close();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> drain(p.getErrorStream()));
        CompletableFuture.supplyAsync(() -> drain(p.getInputStream()));
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the store did not stop by itself");
        }
        return new Result(p.exitValue(), err.get(10, TimeUnit.SECONDS));
    }

    /** The store refused with exit {@code exit} and one line starting {@code start}, and no class names or stack traces. */
    public static void assertOneLine(Result r, int exit, String start) {
        assertEquals(exit, r.exit(), r.stderr());
        List<String> lines = r.stderr().lines().filter(l -> l.startsWith("gpdedup-store: ")).toList();
        assertEquals(1, lines.size(), r.stderr());
        assertTrue(lines.get(0).startsWith(start), r.stderr());
        assertTrue(!r.stderr().contains("Exception") && !r.stderr().contains("\tat "), "no class names or stack traces: " + r.stderr());
    }

    /** The first line {@code store} writes to stdout, waited for up to two minutes; null when it ended without one. */
    public static String firstLine(Process store) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(store.getInputStream(), StandardCharsets.UTF_8));
        return CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (IOException e) {
                return null;
            }
        }).get(120, TimeUnit.SECONDS);
    }

    /** The port in {@code line}, which must be the store's {@link #LISTENING} line; else fails with what the store wrote to {@code stderr}. */
    public static int port(String line, Path stderr) throws IOException {
        Matcher m = LISTENING.matcher(String.valueOf(line));
        assertTrue(m.matches(), line + " / " + Files.readString(stderr));
        return Integer.parseInt(m.group(1));
    }

    private static String drain(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
