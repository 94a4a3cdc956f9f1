package io.gpdedup.dedup.chunk.bench;

import io.gpdedup.dedup.chunk.ChunkStream;
import io.gpdedup.dedup.chunk.Chunker;
import io.gpdedup.dedup.chunk.ChunkerParams;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Chunking throughput over 64 MiB of random bytes (larger than any cache, and random data gives
 * no shortcut: every byte between min and the cut is hashed). One op = the whole buffer, so
 * GB/s = 0.0671 / (seconds per op). Single-threaded: the figure is per core.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgs = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class ChunkerBenchmark {
    static final int SIZE = 64 << 20;

    /** Average chunk size; min = avg/4, max = avg*4. */
    @Param({"65536", "262144", "1048576"})
    public int avg;

    private byte[] data;
    private Chunker chunker;

    @Setup
    public void setUp() {
        data = new byte[SIZE];
        new SplittableRandom(1).nextBytes(data);
        chunker = new Chunker(ChunkerParams.ofAverage(avg));
    }

    /** The pure boundary function over an in-memory buffer: the hashing cost alone. */
    @Benchmark
    public int cut() {
        int chunks = 0;
        for (int off = 0; off < data.length; chunks++) {
            off += chunker.cut(data, off, data.length - off);
        }
        return chunks;
    }

    /** The streaming cursor: hashing plus reads into its buffer and the tail moves. */
    @Benchmark
    public long stream() throws IOException {
        long sum = 0;
        try (ChunkStream chunks = chunker.stream(new ByteArrayInputStream(data))) {
            while (chunks.next()) {
                sum += chunks.length();
            }
        }
        return sum;
    }
}
