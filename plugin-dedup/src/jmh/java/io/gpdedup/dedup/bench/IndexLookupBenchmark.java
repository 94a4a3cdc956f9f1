package io.gpdedup.dedup.bench;

import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.store.index.ChunkIndex;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * The store's chunk index: a lookup of a fingerprint it holds (a repeat backup's MISSING and every
 * restore's GET_CHUNKS) and of one it does not (a first backup's MISSING, mostly answered by the
 * Bloom filter). The index holds {@code chunks} entries, 16384 per GiB of 64 KiB chunks. One op =
 * one lookup; seconds per GiB = time per op × 16384.
 */
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class IndexLookupBenchmark extends StageBenchmark {
    @Param({"1000000"})
    public int chunks;

    private ChunkIndex index;
    private Fingerprint[] present;
    private Fingerprint[] absent;
    private int next;

    @Setup
    public void setUp() {
        SplittableRandom r = new SplittableRandom(3);
        index = new ChunkIndex(chunks);
        present = new Fingerprint[chunks];
        for (int i = 0; i < chunks; i++) {
            present[i] = random(r);
            index.insert(present[i], 1 + i / 4096, (i % 4096) * 20_000L, 20_000);
        }
        absent = new Fingerprint[4096];
        for (int i = 0; i < absent.length; i++) {
            absent[i] = random(r);
        }
    }

    private static Fingerprint random(SplittableRandom r) {
        byte[] b = new byte[Fingerprint.LENGTH];
        r.nextBytes(b);
        return Fingerprint.of(b);
    }

    @Benchmark
    public ChunkIndex.Location hit() {
        next = (next + 7919) % present.length;
        return index.lookup(present[next]);
    }

    @Benchmark
    public boolean miss() {
        next = (next + 1) & (absent.length - 1);
        return index.contains(absent[next]);
    }
}
