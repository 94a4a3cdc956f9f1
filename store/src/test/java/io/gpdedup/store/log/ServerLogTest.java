package io.gpdedup.store.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerLogTest {

    private static LogRecord record(Level level, String message) {
        LogRecord r = new LogRecord(level, message);
        r.setLoggerName("io.gpdedup.store.jobs.AutoCollector");
        return r;
    }

    @Test
    void journalLinesStartWithTheirSyslogPriority() {
        ServerLog.Lines journal = new ServerLog.Lines(true);
        assertEquals("<4>WARNING io.gpdedup.store.jobs.AutoCollector: disk low\n", journal.format(record(Level.WARNING, "disk low")));
        assertTrue(journal.format(record(Level.SEVERE, "x")).startsWith("<3>"));
        assertTrue(journal.format(record(Level.INFO, "x")).startsWith("<6>"));
        assertTrue(journal.format(record(Level.FINE, "x")).startsWith("<7>"));
        assertTrue(new ServerLog.Lines(false).format(record(Level.INFO, "x")).matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d INFO .*: x\n"));
    }

    @Test
    void aFullLogFileMovesUpAndTheOldestGoes(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("store.log");
        RotatingLogFile log = new RotatingLogFile(file, 4096, 3);
        log.setFormatter(new ServerLog.Lines(false));
        for (int i = 0; i < 200; i++) {
            log.publish(record(Level.INFO, "line " + i + " " + "x".repeat(60)));
        }
        log.close();
        assertTrue(Files.size(file) <= 4096);
        assertTrue(Files.size(dir.resolve("store.log.1")) <= 4096);
        assertTrue(Files.readString(dir.resolve("store.log.2")).contains("INFO"));
        assertTrue(Files.notExists(dir.resolve("store.log.3")));
        assertTrue(Files.readString(file).contains("line 199 "), "the newest line is in the current file");
    }
}
