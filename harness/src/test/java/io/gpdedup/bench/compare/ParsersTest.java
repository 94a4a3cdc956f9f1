package io.gpdedup.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.naming.RemoteName;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The readers of other programs' output: plugin log, du, /proc. */
class ParsersTest {
    private static final String LOG_LINE = "20261123:05:38:26 gpbackup_dedup_plugin:root:vm:011003-[INFO]:-backup_data "
            + "bench/backups/20260101/20260101010000/gpbackup_0_20260101010000_16384: 50000000 bytes in 676 chunks, 12 new "
            + "(880000 bytes, 310000 sent)";

    @Test
    void readsThePluginsBackupLine() {
        PluginLogLine l = PluginLogLine.parse(LOG_LINE).orElseThrow();
        assertEquals("bench/backups/20260101/20260101010000/gpbackup_0_20260101010000_16384", l.object());
        assertEquals(50_000_000, l.bytes());
        assertEquals(676, l.chunks());
        assertEquals(12, l.newChunks());
        assertEquals(880_000, l.newBytes());
        assertEquals(310_000, l.sentBytes());
        assertFalse(PluginLogLine.parse("...-[INFO]:-backup_data /x/backups/20260101/20260101000000/f1: stored in 1113 ms").isPresent());
    }

    @Test
    void findsTheLastLineAboutAnObjectAcrossLogFiles(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("gpbackup_dedup_plugin_20261122.log"), LOG_LINE + "\n");
        String later = LOG_LINE.replace("12 new", "0 new").replace("(880000 bytes, 310000 sent)", "(0 bytes, 0 sent)");
        String other = LOG_LINE.replace("20260101010000", "20260101010100");
        Files.writeString(dir.resolve("gpbackup_dedup_plugin_20261123.log"), later + "\n" + other + "\nnoise\n");
        PluginLogLine l = PluginLogLine.last(dir, "backups/20260101/20260101010000/gpbackup_0_20260101010000_16384").orElseThrow();
        assertEquals(0, l.sentBytes());
        assertTrue(PluginLogLine.last(dir, "backups/20260101/20260101020000/x").isEmpty());
    }

    @Test
    void readsDuSummaries() {
        assertEquals(34_636_942, ToolRun.parseDu("34636942\t/var/tmp/x/repo\n"));
        assertThrows(IllegalArgumentException.class, () -> ToolRun.parseDu("du: cannot access 'x': No such file or directory"));
    }

    @Test
    void countsProcStatFieldsFromTheLastParenthesis() {
        // A command name with blanks and a ')' must not shift the fields.
        String line = "4242 (java) (x y) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 56 78 9 20 0 30 0 100 2000 300";
        long[] f = ProcStat.parseStat(line);
        assertEquals(1234, f[14]);
        assertEquals(56, f[15]);
        assertEquals(78, f[16]);
        assertEquals(9, f[17]);
        assertThrows(IllegalArgumentException.class, () -> ProcStat.parseStat("no parenthesis here"));
        assertThrows(IllegalArgumentException.class, () -> ProcStat.parseStat("1 (x) S 1 2"));
    }

    @Test
    void readsThisJvmsOwnCounters() {
        assertTrue(ProcStat.cpuNanos(ProcessHandle.current().pid()) > 0, "a running JVM has used CPU");
        assertTrue(ProcStat.reapedChildrenCpuNanos() >= 0);
        assertEquals(3, ProcStat.loadAverage().split(" ").length);
    }

    @Test
    void backupKeysAreGpbackupKeysWithANewTimestampEachTime() {
        assertEquals("/data/gpseg0/backups/20260101/20260101010000/gpbackup_0_20260101010000_16384", GpdedupTool.key(0));
        assertEquals("/data/gpseg0/backups/20260102/20260102000000/gpbackup_0_20260102000000_16384", GpdedupTool.key(23 * 60));
        assertEquals("backups/20260101/20260101010100/gpbackup_0_20260101010100_16384", RemoteName.fromLocalPath(GpdedupTool.key(1)).path());
    }
}
