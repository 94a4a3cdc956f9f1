package io.gpdedup.plugin.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The native launcher (scripts/launcher/gpdedup_launcher.c) speaks the agent protocol with its own
 * copy of the frame codes and limits: a code changed on one side only would break every call.
 */
class LauncherFrameCodesTest {
    private static final Path SOURCE = Path.of("..", "scripts", "launcher", "gpdedup_launcher.c");
    private static final Pattern DEFINE = Pattern.compile("^#define\\s+(\\w+)\\s+\\(?([0-9a-fA-Fx]+)(?:u\\s*<<\\s*(\\d+))?u?\\)?", Pattern.MULTILINE);

    @Test
    void frameCodesMatchFrameType() throws IOException {
        Map<String, Long> c = defines();
        Map<String, Long> launcher = new TreeMap<>();
        c.forEach((name, value) -> {
            if (name.startsWith("F_")) {
                launcher.put(name.substring(2), value);
            }
        });
        Map<String, Long> agent = new TreeMap<>();
        for (FrameType t : FrameType.values()) {
            agent.put(t.name(), (long) (t.code & 0xff));
        }
        assertEquals(agent, launcher, "frame codes in " + SOURCE + " against FrameType");
    }

    @Test
    void limitsAndVersionMatch() throws IOException {
        Map<String, Long> c = defines();
        assertEquals(FrameType.HEADER_BYTES, c.get("HEADER"));
        assertEquals(CallRequest.VERSION, c.get("PROTOCOL_VERSION"));
        // The launcher sends stdin in frames of at most MAX_DATA and accepts output frames up to it.
        assertEquals(FrameType.STDIN.maxLength, c.get("MAX_DATA"));
        assertEquals(FrameType.STDOUT.maxLength, c.get("MAX_DATA"));
        assertEquals(FrameType.STDERR.maxLength, c.get("MAX_DATA"));
        assertEquals(FrameType.REJECTED.maxLength, c.get("MAX_MESSAGE"));
        assertEquals(FrameType.STDIN_ABORT.maxLength, c.get("MAX_MESSAGE"));
    }

    private static Map<String, Long> defines() throws IOException {
        Map<String, Long> out = new TreeMap<>();
        Matcher m = DEFINE.matcher(Files.readString(SOURCE));
        while (m.find()) {
            String literal = m.group(2);
            long value = literal.startsWith("0x") ? Long.parseLong(literal.substring(2), 16) : Long.parseLong(literal);
            if (m.group(3) != null) {
                value <<= Integer.parseInt(m.group(3));
            }
            out.put(m.group(1), value);
        }
        return out;
    }
}
