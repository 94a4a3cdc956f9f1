package io.gpdedup.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.store.cli.StoreMain;
import io.gpdedup.testsupport.ConsoleCapture;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A bad command line gets one line naming the command and its help, exit code 2, and nothing runs. */
class OneLineErrorsTest {
    @Test
    void badCommandLinesAreOneLineAndExitTwo() {
        for (List<String> args : List.of(List.of("serve", "--bogus"), List.of("serve", "--port", "eighty"), List.of("serve", "--port"),
                List.of("verify", "--nonsense"), List.of("no-such-command"))) {
            ConsoleCapture run = ConsoleCapture.run(() -> StoreMain.run(args.toArray(String[]::new)));
            String text = run.err();
            assertEquals(2, run.exit(), args + ": " + text);
            assertEquals(1, text.strip().lines().count(), args + ":\n" + text);
            assertTrue(text.startsWith("gpdedup-store"), text);
            assertTrue(text.strip().endsWith("--help)"), text);
            assertFalse(text.contains("Exception") || text.contains("Usage:"), text);
        }
    }
}
