package io.gpdedup.dedup.bench;

import io.gpdedup.protocol.model.Fingerprint;
import java.security.MessageDigest;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * SHA-256 over a chunk, as the backup fingerprints every chunk and the restore checks every chunk
 * (and, for a full restore, hashes the stream once more). One op = one chunk, so seconds per GiB
 * = time per op × 2^30 / chunk. Single-threaded: per core.
 */
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class FingerprintBenchmark extends StageBenchmark {
    @Param({"65536"})
    public int chunk;

    private byte[] data;
    private MessageDigest digest;

    @Setup
    public void setUp() {
        data = CopyTextSample.of(chunk, 1);
        digest = Fingerprint.newDigest();
    }

    /** The call the pipelines make per chunk. */
    @Benchmark
    public Fingerprint compute() {
        return Fingerprint.compute(data, 0, data.length);
    }

    /** A reused digest, as the restore's stream hash runs. */
    @Benchmark
    public byte[] reusedDigest() {
        digest.update(data, 0, data.length);
        return digest.digest();
    }
}
