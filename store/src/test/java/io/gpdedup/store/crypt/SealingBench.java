package io.gpdedup.store.crypt;

import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.store.container.RecordBuffer;
import io.gpdedup.store.container.RecordFormat;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/**
 * A rough throughput probe (not a test): chunk records of 40 KiB encoded and decoded on one
 * thread, plaintext ({@code CHK1}, CRC-32C) against sealed ({@code CHKE}, AES-256-GCM), each for
 * two seconds, three times (the first round warms the JIT).
 * {@code java -cp <test-classes>:<classes>:<deps> io.gpdedup.store.crypt.SealingBench}
 */
public final class SealingBench {
    private static final long NANOS = 2_000_000_000L;

    private SealingBench() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("sealing-bench");
        RecordFormat sealed = DataKeys.create(dir, "bench", Kek.generate()).records();
        int size = 40 << 10;
        byte[] raw = new byte[size];
        new Random(1).nextBytes(raw);
        ByteBuffer payload = ByteBuffer.allocateDirect(size).put(raw).flip();
        Fingerprint fp = Fingerprint.compute(raw, 0, size);
        for (int round = 1; round <= 3; round++) {
            for (RecordFormat f : new RecordFormat[] {RecordFormat.PLAIN, sealed}) {
                RecordBuffer encoder = new RecordBuffer(f);
                long bytes = 0;
                long t0 = System.nanoTime();
                ByteBuffer rec = null;
                while (System.nanoTime() - t0 < NANOS) {
                    rec = encoder.encode(fp, 1, size, payload);
                    bytes += size;
                }
                double encode = bytes / ((System.nanoTime() - t0) / 1e9) / (1 << 20);
                ByteBuffer stored = ByteBuffer.allocateDirect(rec.remaining()).put(rec.duplicate()).flip();
                bytes = 0;
                t0 = System.nanoTime();
                while (System.nanoTime() - t0 < NANOS) {
                    f.decode(stored);
                    bytes += size;
                }
                double decode = bytes / ((System.nanoTime() - t0) / 1e9) / (1 << 20);
                System.out.printf("round %d %s: encode %.0f MiB/s, decode %.0f MiB/s%n", round, f == sealed ? "sealed" : "plain ", encode, decode);
            }
        }
    }
}
