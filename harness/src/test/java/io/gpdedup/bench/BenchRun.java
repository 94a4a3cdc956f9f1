package io.gpdedup.bench;

import io.gpdedup.testsupport.ConsoleCapture;
import java.util.function.IntSupplier;

/** One {@code gpdedup-bench} command run in this JVM as its main runs it, stdout and stderr captured. */
public record BenchRun(int exit, String out, String err) {
    public static BenchRun of(String... args) {
        return capture(() -> BenchMain.run(args));
    }

    /** Runs {@code command} (returning its exit code) with stdout and stderr captured. */
    public static BenchRun capture(IntSupplier command) {
        ConsoleCapture c = ConsoleCapture.run(command);
        return new BenchRun(c.exit(), c.out(), c.err());
    }

    @Override
    public String toString() {
        return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
}
