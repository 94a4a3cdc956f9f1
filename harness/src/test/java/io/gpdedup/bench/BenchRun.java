package io.gpdedup.bench;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.IntSupplier;

/** One {@code gpdedup-bench} command run in this JVM as its main runs it, stdout and stderr captured. */
public record BenchRun(int exit, String out, String err) {
    public static BenchRun of(String... args) {
        return capture(() -> BenchMain.run(args));
    }

    /** Runs {@code command} (returning its exit code) with stdout and stderr captured. */
    public static BenchRun capture(IntSupplier command) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            int exit = command.getAsInt();
            return new BenchRun(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
        }
    }

    @Override
    public String toString() {
        return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
}
