package io.gpdedup.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.data.Sha256Sink;
import io.gpdedup.e2e.layout.Timestamp;
import io.gpdedup.e2e.shell.ConcurrentCalls;
import java.security.DigestInputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

/**
 * Multi-file mode with {@code --jobs}: many backup_data (then restore_data) processes at once on
 * one host, different keys of the same backup, all on one store.
 */
class ConcurrencyTest extends PluginContract {
    private static final int STREAMS = 16;

    @Test
    void sixteenConcurrentBackupsThenSixteenConcurrentRestoresRoundTrip() {
        Timestamp t = timestamps.next();
        List<String> keys = new ArrayList<>();
        List<Long> sizes = new ArrayList<>();
        for (int i = 0; i < STREAMS; i++) {
            keys.add(backupDirectory(i % 4, t).dataKey(16384 + i));
            sizes.add(2_000_000L + i * 131_071L);
        }

        List<Callable<String>> backups = new ArrayList<>();
        for (int i = 0; i < STREAMS; i++) {
            int n = i;
            backups.add(() -> {
                DigestInputStream in = Sha256Sink.digesting(new SeededBytes(1000 + n, sizes.get(n)));
                plugin.run(in, "backup_data", cfg(), keys.get(n)).assertSucceeded();
                return Sha256Sink.hex(in);
            });
        }
        List<String> sent = ConcurrentCalls.all(backups);

        List<Callable<String>> restores = new ArrayList<>();
        for (int i = 0; i < STREAMS; i++) {
            int n = i;
            restores.add(() -> {
                Sha256Sink sink = new Sha256Sink();
                plugin.stream(null, sink, "restore_data", cfg(), keys.get(n)).assertSucceeded();
                assertEquals(sizes.get(n), sink.count(), () -> "length of " + keys.get(n));
                return sink.hex();
            });
        }
        List<String> restored = ConcurrentCalls.all(restores);
        for (int i = 0; i < STREAMS; i++) {
            assertEquals(sent.get(i), restored.get(i), "content of " + keys.get(i));
        }
    }
}
