package io.gpdedup.store.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpdedup.protocol.model.ObjectInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackupSetTest {
    private static ObjectInfo object(String name) {
        return new ObjectInfo(name, 10, 1);
    }

    @Test
    void groupsObjectsByDirectoryAndTimestampOldestFirst() {
        List<BackupSet> sets = BackupSet.of(List.of(
                object("c1/backups/20261102/20261102100000/gpbackup_0_20261102100000_16384"),
                object("c1/backups/20261101/20261101100000/gpbackup_0_20261101100000_16384"),
                object("c1/backups/20261101/20261101100000/gpbackup_1_20261101100000_16384"),
                object("c0/x/backups/20261101/20261101100000/gpbackup_20261101100000_toc.yaml")));
        assertEquals(3, sets.size());
        assertEquals(List.of("c0/x", "c1", "c1"), sets.stream().map(BackupSet::directory).toList());
        assertEquals(List.of("20261101100000", "20261101100000", "20261102100000"), sets.stream().map(BackupSet::timestamp).toList());
        assertEquals(20, sets.get(1).logicalBytes());
        assertEquals("c1/backups/20261101/20261101100000/", sets.get(1).prefix());
    }

    @Test
    void leavesOutObjectsNotNamedAsABackup() {
        List<BackupSet> sets = BackupSet.of(List.of(
                object("backups/20261101/20261101100000/no-directory"),
                object("c1/backups/20261102/20261101100000/date-does-not-match"),
                object("c1/backups/20261101/2026110110000/short-timestamp"),
                object("c1/other/20261101/20261101100000/file"),
                object("c1/backups/20261101/20261101100000")));
        assertEquals(List.of(), sets);
    }

    @Test
    void aDirectorysBackupsAreUnderOnePrefix() {
        assertEquals("c1/backups/", BackupSet.backupsOf("c1//"));
    }
}
