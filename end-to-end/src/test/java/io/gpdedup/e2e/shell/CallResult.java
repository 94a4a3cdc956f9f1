package io.gpdedup.e2e.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.charset.StandardCharsets;

/**
 * How a plugin call ended. {@code stdout} is null when it was streamed to a sink instead of
 * captured; {@code stdoutBytes} is always the number of bytes the plugin wrote there.
 */
public record CallResult(String commandLine, int exitCode, byte[] stdout, long stdoutBytes, String stderr, String stdinError) {

    public String stdoutText() {
        return stdout == null ? null : new String(stdout, StandardCharsets.UTF_8);
    }

    /**
     * Success as gpbackup needs it: exit 0 and nothing on stderr (gpbackup_helper fails a restore on
     * any stderr text, whatever the exit code).
     */
    public CallResult assertSucceeded() {
        assertEquals(0, exitCode, () -> "expected success: " + this);
        assertEquals("", stderr, () -> "stderr must stay empty on success: " + this);
        return this;
    }

    /**
     * Failure as gpbackup needs it: non-zero exit, not one byte on stdout (pipelines mask exit codes,
     * so stdout is all a consumer may see), and a message on stderr for the user.
     */
    public CallResult assertFailed() {
        assertNotEquals(0, exitCode, () -> "expected failure: " + this);
        assertEquals(0, stdoutBytes, () -> "a failed call must print nothing on stdout: " + this);
        assertFalse(stderr.isBlank(), () -> "a failed call must explain itself on stderr: " + this);
        return this;
    }

    @Override
    public String toString() {
        String out = stdout == null ? "(streamed)" : printable(stdout);
        return "bash -c \"" + commandLine + "\" exited " + exitCode + "; stdout " + stdoutBytes + " bytes " + out + "; stderr: "
                + abbreviate(stderr) + (stdinError == null ? "" : "; stdin: " + stdinError);
    }

    /** The start of stdout with control and non-ASCII bytes escaped, so binary data stays readable in a report. */
    private static String printable(byte[] b) {
        StringBuilder sb = new StringBuilder("[");
        int n = Math.min(b.length, 300);
        for (int i = 0; i < n; i++) {
            int c = b[i] & 0xff;
            if (c == '\n' || (c >= 0x20 && c < 0x7f)) {
                sb.append((char) c);
            } else {
                sb.append(String.format("\\x%02x", c));
            }
        }
        return sb.append(b.length > n ? "...]" : "]").toString();
    }

    private static String abbreviate(String s) {
        return s.length() <= 2000 ? "[" + s + "]" : "[" + s.substring(0, 2000) + "...]";
    }
}
