package io.gpdedup.store.engine;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.store.crypt.Kek;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A rough probe (not a test): the process CPU of a unique-data backup (256 MiB in 64 KiB chunks,
 * stored as they are) and the thread CPU of its restore through {@link DedupStoreEngine}, without
 * and with encryption at rest, three rounds (the first warms the JIT).
 * {@code java -cp <test-classes>:<classes>:<deps> io.gpdedup.store.engine.EncryptedPutProbe [dir]}
 */
public final class EncryptedPutProbe {
    private static final int BYTES = 256 << 20;

    private EncryptedPutProbe() {
    }

    public static void main(String[] args) throws Exception {
        Path parent = Path.of(args.length > 0 ? args[0] : "/var/tmp");
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        var threads = ManagementFactory.getThreadMXBean();
        double perGiB = (double) (1L << 30) / BYTES / 1e9;
        for (int round = 1; round <= 3; round++) {
            for (Kek kek : new Kek[] {null, Kek.generate()}) {
                Path dir = Files.createTempDirectory(parent, "encrypted-put-probe");
                try (DedupStoreEngine engine = kek == null ? DedupStoreEngine.open(dir) : DedupStoreEngine.open(dir, EngineSettings.defaults(), kek)) {
                    StorageUnit unit = engine.unit("probe");
                    byte[] data = TestObjects.data(10L * round + (kek == null ? 1 : 2), BYTES, false);
                    long cpu0 = os.getProcessCpuTime();
                    TestObjects.backup(unit, "x", data, 64 << 10, Codec.NONE);
                    long cpu1 = os.getProcessCpuTime();
                    long r0 = threads.getCurrentThreadCpuTime();
                    TestObjects.restore(unit, "x");
                    long r1 = threads.getCurrentThreadCpuTime();
                    System.out.printf("round %d %s: backup %.2f process CPU s per GiB, restore %.2f thread CPU s per GiB%n", round,
                            kek == null ? "plaintext" : "encrypted", (cpu1 - cpu0) * perGiB, (r1 - r0) * perGiB);
                } finally {
                    try (Stream<Path> walk = Files.walk(dir)) {
                        for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                            Files.delete(p);
                        }
                    }
                }
            }
        }
    }
}
