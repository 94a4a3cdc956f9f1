package io.gpdedup.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.layout.BackupDirectory;
import io.gpdedup.e2e.shell.CallResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Command lines gpbackup never sends: unknown commands, wrong argument counts, bad hook words. */
class UsageTest extends PluginContract {
    /** The data key named by the last template filled in. */
    private String key;

    @Override
    protected void forgetObjectsOfThePreviousFixture() {
        key = null;
    }

    /** plugin_test.sh: {@code unknown_command} must fail; the user should see how to call the plugin. */
    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"unknown_command", "unknown_command {CFG}", "", "backupdata {CFG} {KEY}", "--help {CFG}", "-help"})
    void unknownCommandsFailWithUsageOnStderr(String template) throws IOException {
        CallResult r = call(words(template)).assertFailed();
        assertTrue(r.stderr().toLowerCase(Locale.ROOT).contains("usage"), () -> "expected usage on stderr: " + r);
    }

    /** A person's first try: usage, the config's options and the exit codes on stdout, exit 0. */
    @Test
    void helpPrintsUsageOnStdoutAndSucceeds() {
        CallResult r = call("--help").assertSucceeded();
        String name = plugin.executable().getFileName().toString();
        assertTrue(r.stdoutText().contains("usage: " + name) && r.stdoutText().contains("backup_data|restore_data CFG KEY")
                && r.stdoutText().contains("exit status"), r::toString);
        assertEquals("", r.stderr(), r::toString);
    }

    /**
     * Each must fail before touching the store; a backup_data that fails on its arguments must not
     * store its stdin under any key.
     */
    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {
            "plugin_api_version {CFG}",
            "--version {CFG}",
            "setup_plugin_for_backup {CFG} {DIR}",
            "setup_plugin_for_backup {CFG} {DIR} segment {CONTENT} extra",
            "cleanup_plugin_for_restore {CFG}",
            "backup_file {CFG}",
            "backup_file {CFG} {FILE} extra",
            "restore_file {CFG}",
            "backup_data {CFG}",
            "backup_data {CFG} {KEY} extra",
            "backup_data {KEY}",
            "restore_data {CFG}",
            "restore_data {CFG} {KEY} extra",
            "restore_data_subset {CFG} {KEY}",
            "restore_data_subset {CFG} {KEY} {OFFSETS} extra",
            "delete_backup {CFG}",
            "delete_backup {CFG} {T} extra",
            "list_directory",
            "list_directory {CFG} backups extra",
            "delete_directory {CFG}",
            "delete_directory {CFG} backups extra",
    })
    void wrongArgumentCountsFail(String template) throws IOException {
        call(utf8("data that must not be stored\n"), words(template)).assertFailed();
        // the key the call named: nothing may be stored under it
        call("restore_data", cfg(), key).assertFailed();
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {
            "setup_plugin_for_backup {CFG} {DIR} host",
            "setup_plugin_for_backup {CFG} {DIR} segment \\\"zero\\\"",
            "setup_plugin_for_backup {CFG} {DIR} segment \\\"-2\\\"",
            "cleanup_plugin_for_backup {CFG} {DIR} SEGMENT_HOSTS",
    })
    void badHookScopeOrContentIdFails(String template) throws IOException {
        call(words(template)).assertFailed();
    }

    /** Fills a template with fresh, valid values for this test: {CFG}, {DIR}, {KEY}, {FILE}, {OFFSETS}, {T}, {CONTENT}. */
    private String[] words(String template) throws IOException {
        BackupDirectory dir = backupDirectory(0, timestamps.next()).create();
        key = dir.dataKey(16384);
        Path file = dir.file("gpbackup_0_" + dir.timestamp() + "_toc.yaml");
        Files.writeString(file, "toc");
        Path offsets = Files.createTempFile(tmp, "gprestore_offsets_", "");
        Files.writeString(offsets, "1 0 1");
        String filled = template.replace("{CFG}", cfg()).replace("{DIR}", dir.path().toString()).replace("{KEY}", key)
                .replace("{FILE}", file.toString()).replace("{OFFSETS}", offsets.toString())
                .replace("{T}", dir.timestamp().value()).replace("{CONTENT}", quotedContentId(0));
        return filled.isEmpty() ? new String[0] : filled.split(" ");
    }
}
