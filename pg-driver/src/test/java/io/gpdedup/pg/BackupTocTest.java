package io.gpdedup.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BackupTocTest {
    @Test
    void segmentTocReadsWhatTheHelperWrites(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("gpbackup_0_20261101100000_toc.yaml");
        Files.writeString(file, "dataentries:\n  16384:\n    startbyte: 0\n    endbyte: 10\n"
                + "  16390:\n    startbyte: 10\n    endbyte: 10\n");
        Map<Long, BackupToc.Range> toc = BackupToc.read(file, BackupToc.SegmentToc.class).dataEntries();
        assertEquals(List.of(16384L, 16390L), List.copyOf(toc.keySet()));
        assertEquals(new BackupToc.Range(0, 10), toc.get(16384L));
        assertEquals(new BackupToc.Range(10, 10), toc.get(16390L));
    }

    @Test
    void segmentTocReadsBackWhatItWrites(@TempDir Path dir) throws IOException {
        Map<Long, BackupToc.Range> entries = new LinkedHashMap<>();
        entries.put(16390L, new BackupToc.Range(0, 7));
        entries.put(16384L, new BackupToc.Range(7, 7));
        Path file = dir.resolve("toc.yaml");
        BackupToc.write(file, new BackupToc.SegmentToc(entries));
        assertEquals(entries, BackupToc.read(file, BackupToc.SegmentToc.class).dataEntries());
        assertEquals(List.of(16390L, 16384L), List.copyOf(BackupToc.read(file, BackupToc.SegmentToc.class).dataEntries().keySet()));
    }
}
