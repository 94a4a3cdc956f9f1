package io.gpdedup.plugin.api;

import static org.junit.jupiter.api.Assertions.assertThrows;

import io.gpdedup.protocol.naming.NameException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RemoteDirectoryTest {
    /** A newline would split the one error line gpbackup shows, and the listing's one line per object. */
    @ParameterizedTest
    @ValueSource(strings = {"d/a\nb", "d/a\rb", "d/a\u001bb", "d/a\u007fb", "d\t/f"})
    void controlCharactersAreRefused(String path) {
        assertThrows(NameException.class, () -> RemoteDirectory.parse(path));
    }
}
