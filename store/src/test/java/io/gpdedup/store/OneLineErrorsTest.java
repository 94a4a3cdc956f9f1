package io.gpdedup.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.store.server.StoreMain;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A bad command line gets one line naming the command and its help, exit code 2, and nothing runs. */
class OneLineErrorsTest {
    @Test
    void badCommandLinesAreOneLineAndExitTwo() {
        for (List<String> args : List.of(List.of("serve", "--bogus"), List.of("serve", "--port", "eighty"), List.of("serve", "--port"),
                List.of("verify", "--nonsense"), List.of("no-such-command"))) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            PrintStream stderr = System.err;
            int exit;
            try {
                System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
                exit = StoreMain.run(args.toArray(String[]::new));
            } finally {
                System.setErr(stderr);
            }
            String text = err.toString(StandardCharsets.UTF_8);
            assertEquals(2, exit, args + ": " + text);
            assertEquals(1, text.strip().lines().count(), args + ":\n" + text);
            assertTrue(text.startsWith("gpdedup-store"), text);
            assertTrue(text.strip().endsWith("--help)"), text);
            assertFalse(text.contains("Exception") || text.contains("Usage:"), text);
        }
    }
}
