package io.gpdedup.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpdedup.e2e.data.PluginTestText;
import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.data.Sha256Sink;
import io.gpdedup.e2e.layout.BackupDirectory;
import java.security.DigestInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** backup_data and restore_data: a table's (or a whole segment's) data stream in, the same bytes out. */
class DataRoundTripTest extends PluginContract {

    /** 0 bytes as plugin_test.sh sends, 1 KiB, and 100 MiB streamed and compared by digest only. */
    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(longs = {0, 1024, 100L << 20})
    void restoreDataPrintsExactlyWhatBackupDataReceived(long size) {
        String key = backupDirectory(0, timestamps.next()).dataKey(16384);
        DigestInputStream sent = Sha256Sink.digesting(new SeededBytes(size, size));
        var backup = plugin.run(sent, "backup_data", cfg(), key).assertSucceeded();
        assertEquals(0, backup.stdoutBytes(), "backup_data must print nothing on stdout");

        Sha256Sink restored = new Sha256Sink();
        plugin.stream(null, restored, "restore_data", cfg(), key).assertSucceeded();
        assertEquals(size, restored.count(), "restored length");
        assertEquals(Sha256Sink.hex(sent), restored.hex(), "restored bytes differ from the backed-up bytes");
    }

    /** plugin_test.sh: {@code echo $data | backup_data}, with data 1,000 alphanumerics and a newline. */
    @Test
    void pluginTestShData() {
        byte[] data = PluginTestText.generate(1, 1000);
        String key = backupDirectory(0, timestamps.nextPluginTestStyle()).file("testdata_x.txt").toString();
        backupData(key, data);
        assertArrayEquals(data, restoreData(key));
    }

    /**
     * Every key shape gpbackup uses; compressed suffixes must not make the plugin transform anything,
     * since gpbackup compresses before the plugin and decompresses after it.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"multi-file", "multi-file .gz", "multi-file .zst", "single-data-file", "single-data-file .gz"})
    void keyShapesRoundTripUnchanged(String shape) {
        BackupDirectory dir = backupDirectory(1, timestamps.next());
        String key = (shape.startsWith("multi") ? dir.dataKey(16385) : dir.singleDataFileKey())
                + (shape.endsWith(".gz") ? ".gz" : shape.endsWith(".zst") ? ".zst" : "");
        // gzip magic, so a plugin sniffing content cannot tell it from a real compressed stream
        byte[] data = SeededBytes.array(shape.hashCode(), 4096);
        data[0] = 0x1f;
        data[1] = (byte) 0x8b;
        backupData(key, data);
        assertArrayEquals(data, restoreData(key));
    }

    @Test
    void restoreDataOfAKeyNeverBackedUpFailsAndPrintsNothing() {
        BackupDirectory dir = backupDirectory(0, timestamps.next());
        backupData(dir.dataKey(1), utf8("a neighbour in the same backup"));
        call("restore_data", cfg(), dir.dataKey(2)).assertFailed();
        call("restore_data", cfg(), backupDirectory(0, timestamps.next()).dataKey(1)).assertFailed();
    }
}
