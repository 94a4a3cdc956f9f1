package io.gpdedup.store.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PasswordHashTest {

    @Test
    void aHashMatchesItsPasswordOnlyAndSurvivesItsText() {
        PasswordHash h = PasswordHash.create("correct horse".toCharArray(), 1_000);
        PasswordHash back = PasswordHash.parse(h.encoded());
        assertTrue(back.matches("correct horse".toCharArray()));
        assertFalse(back.matches("correct horsf".toCharArray()));
        assertFalse(back.matches("".toCharArray()));
        assertEquals(1_000, back.iterations());
        assertTrue(h.encoded().startsWith("pbkdf2-sha256$1000$"));
        assertFalse(h.encoded().contains("horse"));
        assertFalse(h.toString().contains(h.encoded().substring(h.encoded().lastIndexOf('$') + 1)), "toString hides the hash");
    }

    @Test
    void theSaltDiffersEachTime() {
        assertNotEquals(PasswordHash.create("same".toCharArray(), 1_000).encoded(), PasswordHash.create("same".toCharArray(), 1_000).encoded());
    }

    @Test
    void aDecoyMatchesNoPasswordAndCostsAsManyIterationsAsARealHash() {
        PasswordHash decoy = PasswordHash.decoy(1_000);
        for (String password : new String[] {"", "decoy", "gpdedup", "correct horse"}) {
            assertFalse(decoy.matches(password.toCharArray()), password);
        }
        assertEquals(1_000, decoy.iterations());
        assertEquals(decoy.encoded().length(), PasswordHash.create("x".toCharArray(), 1_000).encoded().length(), "salt and hash of a real one's size");
        assertNotEquals(decoy.encoded(), PasswordHash.decoy(1_000).encoded());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "secret", "pbkdf2-sha256$1000$AAAAAAAAAAAAAAAAAAAAAA", "sha1$1000$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAA",
        "pbkdf2-sha256$many$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAA", "pbkdf2-sha256$10$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAA",
        "pbkdf2-sha256$1000$!!!!$AAAAAAAAAAAAAAAAAAAAAA", "pbkdf2-sha256$1000$AAAA$AAAAAAAAAAAAAAAAAAAAAA"})
    void malformedHashesAreRefusedWithoutEchoingThem(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PasswordHash.parse(text));
        if (!text.isEmpty()) {
            assertFalse(e.getMessage().contains(text), e.getMessage());
        }
    }
}
