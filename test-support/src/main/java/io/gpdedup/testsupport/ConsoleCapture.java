package io.gpdedup.testsupport;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.IntSupplier;

/**
 * A command's main run in the test's JVM with {@code System.out} and {@code System.err} captured,
 * as a user would see them, and put back afterwards.
 *
 * @param exit what the command returned
 */
public record ConsoleCapture(int exit, String out, String err) {
    /** Runs {@code command} (returning its exit code) with stdout and stderr captured. */
    public static ConsoleCapture run(IntSupplier command) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            int exit = command.getAsInt();
            return new ConsoleCapture(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
        }
    }
}
