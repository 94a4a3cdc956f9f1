package io.gpdedup.protocol.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RemoteNameTest {
    @Test
    void takesOnlyTheLastFourComponents() {
        RemoteName a = RemoteName.fromLocalPath("/data/gpseg0/backups/20261123/20261123045500/gpbackup_0_20261123045500_16384");
        RemoteName b = RemoteName.fromLocalPath("/other/cluster/seg7/backups/20261123/20261123045500/gpbackup_0_20261123045500_16384");
        assertEquals(a, b);
        assertEquals("backups/20261123/20261123045500/gpbackup_0_20261123045500_16384", a.path());
        assertEquals("20261123045500", a.timestamp().value());
    }

    @Test
    void acceptsPluginTestShPseudoTimestamps() {
        RemoteName n = RemoteName.fromLocalPath("/tmp/testseg/backups/99999998/99999998765432/testdata_99999998765432.txt");
        assertEquals("99999998", n.timestamp().dateDirectory());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "", "relative/backups/20261123/20261123045500/f", "/backups/20261123/20261123045500/f/..",
        "/d/backups/20261123/20261123045500/../f", "/d/../backups/20261123/20261123045500/f",
        "/d/backup/20261123/20261123045500/f", "/d/backups/2026112/20261123045500/f", "/d/backups/20261123/2026112304550/f",
        "/d/backups/20261124/20261123045500/f", "/d/backups/20261123/20261123045500/", "/d/backups/20261123/20261123045500/.",
        "/backups/20261123/20261123045500", "/d/backups/20261123/2026112304550x/f", "/d/backups/20261123/20261123045500/a\0b"})
    void rejectsEverythingElse(String path) {
        assertThrows(NameException.class, () -> RemoteName.fromLocalPath(path));
    }

    /** A newline would split the one error line gpbackup shows, and the listing's one line per object. */
    @ParameterizedTest
    @ValueSource(strings = {"/d/backups/20261123/20261123045500/a\nb", "/d/backups/20261123/20261123045500/a\rb",
        "/d/backups/20261123/20261123045500/a\u001bb", "/d/backups/20261123/20261123045500/a\u007fb", "/d\t/backups/20261123/20261123045500/f"})
    void controlCharactersAreRefusedWithOneLine(String path) {
        NameException e = assertThrows(NameException.class, () -> RemoteName.fromLocalPath(path));
        assertTrue(e.getMessage().matches("invalid backup file path: contains control character U\\+00[0-7][0-9A-F] at position \\d+ .*"),
                e.getMessage());
        assertFalse(e.getMessage().chars().anyMatch(c -> c < 0x20 || c == 0x7f), "the message itself is printable");
    }

    @ParameterizedTest
    @ValueSource(strings = {"2026112304550", "202611230455001", "abcdefghijklmn", "2026-11-23 0455", ""})
    void timestampsAreExactlyFourteenDigits(String ts) {
        assertThrows(NameException.class, () -> BackupTimestamp.parse(ts));
    }
}
