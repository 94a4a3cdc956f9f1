package io.gpdedup.plugin.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The native launcher speaks the agent protocol with the numbers in its frames.h, the agent with
 * its own constants: a code changed on one side only would break every call. Every #define of the
 * header must equal the agent's constant of the same name, and every frame type and stdio flag of
 * the agent must be in the header.
 */
class FramesHeaderTest {
    private static final Path HEADER = Path.of("src", "main", "c", "frames.h");
    private static final String GUARD = "GPDEDUP_FRAMES_H";
    private static final Pattern DEFINE = Pattern.compile("^\\s*#\\s*define\\s+(\\w+)(.*)$", Pattern.MULTILINE);
    /** 2, 0x16, 8u, 4096u, (1u << 20) */
    private static final Pattern VALUE = Pattern.compile("\\(?\\s*(0x[0-9a-fA-F]+|[0-9]+)u?(?:\\s*<<\\s*([0-9]+))?\\s*\\)?");

    @Test
    void everyDefineEqualsTheAgentsConstantOfTheSameName() throws IOException {
        assertEquals(agent(), defines(Files.readString(HEADER)), HEADER + " against the host agent's constants (left)");
    }

    @Test
    void aCodeChangedInTheHeaderOnlyIsFound() throws IOException {
        String header = Files.readString(HEADER);
        String changed = header.replaceFirst("(?m)^#define F_EXIT 0x16$", "#define F_EXIT 0x17");
        assertNotEquals(header, changed, "the control case needs F_EXIT's line in " + HEADER);
        assertNotEquals(agent(), defines(changed));
    }

    @Test
    void aDefineTheAgentLacksIsFound() throws IOException {
        Map<String, Long> c = defines(Files.readString(HEADER) + "\n#define F_PING 0x17\n");
        assertTrue(c.containsKey("F_PING"));
        assertNotEquals(agent(), c);
    }

    @Test
    void aValueThatIsNoNumberIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> defines("#define MAX_DATA (1u << FRAME_BITS)\n"));
    }

    /** The agent's constants under the names the header gives them. */
    private static Map<String, Long> agent() {
        Map<String, Long> out = new TreeMap<>();
        out.put("PROTOCOL_VERSION", (long) CallRequest.VERSION);
        out.put("HEADER", (long) FrameType.HEADER_BYTES);
        for (FrameType t : FrameType.values()) {
            out.put("F_" + t.name(), (long) (t.code & 0xff));
        }
        for (Field f : CallerStdio.class.getDeclaredFields()) {
            int m = f.getModifiers();
            if (Modifier.isStatic(m) && Modifier.isFinal(m) && !Modifier.isPrivate(m) && f.getType() == int.class) {
                out.put("STDIO_" + f.getName(), (long) intValue(f));
            }
        }
        out.put("MAX_DATA", oneLimit(FrameType.CALL, FrameType.STDIN, FrameType.STDOUT, FrameType.STDERR));
        out.put("MAX_MESSAGE", oneLimit(FrameType.REJECTED, FrameType.STDIN_ABORT));
        return out;
    }

    private static int intValue(Field f) {
        try {
            return f.getInt(null);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(f + " cannot be read from the agent's package", e);
        }
    }

    /** The limit the frames share: the header has one name for it. */
    private static long oneLimit(FrameType... types) {
        Map<String, Integer> limits = new TreeMap<>();
        for (FrameType t : types) {
            limits.put(t.name(), t.maxLength);
        }
        assertEquals(1, limits.values().stream().distinct().count(), "the launcher bounds these frames by one limit: " + limits);
        return types[0].maxLength;
    }

    /** The header's #define lines by name, but for its include guard; a value must be a number. */
    private static Map<String, Long> defines(String header) {
        Map<String, Long> out = new TreeMap<>();
        Matcher m = DEFINE.matcher(header);
        while (m.find()) {
            String name = m.group(1);
            String literal = m.group(2).replaceAll("/\\*.*?\\*/|//.*", "").trim();
            if (name.equals(GUARD) && literal.isEmpty()) {
                continue;
            }
            Matcher v = VALUE.matcher(literal);
            if (!v.matches()) {
                throw new IllegalArgumentException(name + " is no number: " + literal);
            }
            String digits = v.group(1);
            long value = digits.startsWith("0x") ? Long.parseLong(digits.substring(2), 16) : Long.parseLong(digits);
            if (v.group(2) != null) {
                value <<= Integer.parseInt(v.group(2));
            }
            if (out.put(name, value) != null) {
                throw new IllegalArgumentException(name + " is defined twice");
            }
        }
        return out;
    }
}
