package io.gpdedup.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.layout.BackupDirectory;
import io.gpdedup.e2e.layout.Timestamp;
import io.gpdedup.e2e.shell.CallResult;
import io.gpdedup.e2e.shell.ConcurrentCalls;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * setup_plugin_for_backup/restore and cleanup_plugin_for_backup/restore, fanned out as gpbackup
 * does: the coordinator first, then every segment_host call at once (one per primary segment, not
 * one per host), then every segment call at once. Scopes and content ids in every spelling gpbackup
 * and plugin_test.sh use.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HookTest extends PluginContract {
    private static final int SEGMENTS_PER_HOST = 16;

    /** First, so the calls race on a store nobody has set up yet. */
    @Test
    @Order(1)
    void sixteenConcurrentSegmentHostHooksSucceed() {
        Timestamp t = timestamps.next();
        List<BackupDirectory> segments = new ArrayList<>();
        for (int c = 0; c < SEGMENTS_PER_HOST; c++) {
            segments.add(backupDirectory(c, t).create());
        }
        for (String hook : List.of("setup_plugin_for_backup", "cleanup_plugin_for_backup")) {
            List<Callable<CallResult>> calls = new ArrayList<>();
            for (BackupDirectory s : segments) {
                calls.add(() -> call(hook, cfg(), s.path().toString(), "segment_host"));
            }
            ConcurrentCalls.all(calls).forEach(CallResult::assertSucceeded);
        }
        byte[] data = SeededBytes.array(16, 10_000);
        backupData(segments.get(15).dataKey(16384), data);
        assertArrayEquals(data, restoreData(segments.get(15).dataKey(16384)));
    }

    @Test
    @Order(2)
    void everyTierAndSpellingSucceedsTwiceAroundABackupAndRestore() {
        Timestamp t = timestamps.next();
        BackupDirectory coordinator = backupDirectory(-1, t).create();
        BackupDirectory seg0 = backupDirectory(0, t).create();
        BackupDirectory seg1 = backupDirectory(1, t).create();
        byte[] data = SeededBytes.array(2, 50_000);

        runTiersTwice("setup_plugin_for_backup", coordinator, seg0, seg1);
        backupData(seg0.dataKey(16384), data);
        runTiersTwice("cleanup_plugin_for_backup", coordinator, seg0, seg1);

        // gprestore (multi-file) does not create segment backup directories: the hooks get paths that do not exist.
        BackupDirectory seg2 = backupDirectory(2, t);
        BackupDirectory seg3 = backupDirectory(3, t);
        runTiersTwice("setup_plugin_for_restore", coordinator, seg2, seg3);
        assertArrayEquals(data, restoreData(seg0.dataKey(16384)));
        runTiersTwice("cleanup_plugin_for_restore", coordinator, seg2, seg3);
    }

    private void runTiersTwice(String hook, BackupDirectory coordinator, BackupDirectory a, BackupDirectory b) {
        for (int round = 0; round < 2; round++) {
            String c = coordinator.path().toString();
            // gpbackup's own command (bash strips its quotes), then plugin_test.sh's and the README's spellings;
            // gpbackup runs only one of them, so running them together asks nothing more of the plugin
            concurrently(List.of(
                    () -> call(hook, cfg(), c, "master", "-1"),
                    () -> call(hook, cfg(), c, "master", quotedContentId(-1)),
                    () -> call(hook, cfg(), c, "coordinator", quotedContentId(-1))));
            concurrently(List.of(
                    () -> call(hook, cfg(), a.path().toString(), "segment_host"),
                    () -> call(hook, cfg(), b.path().toString(), "segment_host")));
            concurrently(List.of(
                    () -> call(hook, cfg(), a.path().toString(), "segment", quotedContentId(a.content())),
                    () -> call(hook, cfg(), a.path().toString(), "segment", String.valueOf(a.content())),
                    () -> call(hook, cfg(), b.path().toString(), "segment", quotedContentId(b.content()))));
        }
    }

    private static void concurrently(List<Callable<CallResult>> calls) {
        ConcurrentCalls.all(calls).forEach(CallResult::assertSucceeded);
    }
}
