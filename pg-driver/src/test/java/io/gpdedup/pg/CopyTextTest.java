package io.gpdedup.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CopyTextTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "plain text|plain text",
        "C:\\dir|C:\\\\dir",
        "a<TAB>b|a\\tb",
        "line<NL>next|line\\nnext",
        "cr<CR>lf<NL>|cr\\rlf\\n",
        "\\\\|\\\\\\\\",
    })
    void escapesAsCopyWrites(String raw, String expected) {
        byte[] src = raw.replace("<TAB>", "\t").replace("<NL>", "\n").replace("<CR>", "\r")
                .getBytes(StandardCharsets.US_ASCII);
        byte[] dst = new byte[2 * src.length + 3];
        int end = CopyText.escape(src, 0, src.length, dst, 3);
        assertEquals(expected, new String(dst, 3, end - 3, StandardCharsets.US_ASCII));
    }

    @Test
    void nullIsBackslashN() {
        byte[] dst = new byte[4];
        assertEquals(3, CopyText.writeNull(dst, 1));
        assertEquals("\\N", new String(dst, 1, 2, StandardCharsets.US_ASCII));
    }
}
