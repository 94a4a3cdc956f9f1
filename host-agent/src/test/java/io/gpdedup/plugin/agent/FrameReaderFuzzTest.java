package io.gpdedup.plugin.agent;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.gpdedup.testsupport.Allocation;
import io.gpdedup.testsupport.Mutator;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Seeded fuzzing of the host agent's wire: mutated launcher streams through {@link FrameReader}
 * and CALL payloads through {@link CallRequest#decode}. Only {@link ProtocolException} and
 * {@link EOFException} may come out, and no input makes the reader allocate beyond a frame type's
 * limit (1 MiB) plus its buffer.
 */
class FrameReaderFuzzTest {
    private static final int BUFFER = 64 * 1024;

    private static List<byte[]> samples() throws IOException {
        List<byte[]> out = new ArrayList<>();
        byte[] call = new CallRequest(1, 4242, Path.of("/home/gpadmin"),
                List.of("backup_data", "/tmp/cfg.yaml", "/data/gpseg0/backups/20261123/20261123045500/gpbackup_0_20261123045500_1")).encode();
        out.add(stream(w -> {
            w.write(FrameType.CALL, call);
            w.write(FrameType.STDIN, "some copy rows\n".getBytes(StandardCharsets.US_ASCII));
            w.write(FrameType.STDIN, new byte[300]);
            w.write(FrameType.STDIN_EOF);
        }));
        out.add(stream(w -> {
            w.write(FrameType.CALL, call);
            w.write(FrameType.STDIN_ABORT, "read error".getBytes(StandardCharsets.UTF_8));
        }));
        out.add(stream(w -> {
            w.write(FrameType.ACCEPTED);
            w.write(FrameType.STDOUT, "restored bytes".getBytes(StandardCharsets.US_ASCII));
            w.write(FrameType.STDERR, "warning".getBytes(StandardCharsets.US_ASCII));
            w.writeInt(FrameType.EXIT, 0);
        }));
        out.add(call);
        return out;
    }

    private interface Frames {
        void write(FrameWriter w) throws IOException;
    }

    private static byte[] stream(Frames frames) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        frames.write(new FrameWriter(GatheringSink.of(bytes)));
        return bytes.toByteArray();
    }

    @ParameterizedTest
    @ValueSource(longs = {5L, 20261123L})
    void mutatedStreamsReadOrFailCleanly(long seed) throws IOException {
        int iterations = Mutator.iterations();
        List<byte[]> samples = samples();
        long[] outcome = new long[3];
        assertTimeoutPreemptively(Duration.ofMinutes(30), () -> {
            Mutator mutator = new Mutator(seed, samples);
            for (int i = 0; i < iterations; i++) {
                byte[] input = mutator.next();
                long before = Allocation.sofar();
                try {
                    FrameReader reader = new FrameReader(Channels.newChannel(new ByteArrayInputStream(input)), BUFFER);
                    for (FrameType t = reader.next(); t != null; t = reader.next()) {
                        byte[] payload = reader.payload();
                        if (t == FrameType.CALL) {
                            try {
                                CallRequest.decode(payload);
                            } catch (ProtocolException bad) {
                                outcome[2]++;
                            }
                        }
                    }
                    outcome[0]++;
                } catch (ProtocolException | EOFException expected) {
                    outcome[1]++;
                } catch (IOException | RuntimeException e) {
                    fail("input " + i + " threw " + e, e);
                }
                // Also the CALL decoder on the raw mutated bytes: it parses what a CALL frame carries.
                try {
                    CallRequest.decode(input);
                } catch (ProtocolException expected) {
                    outcome[2]++;
                } catch (RuntimeException e) {
                    fail("CALL payload " + i + " threw " + e, e);
                }
                long allocated = Allocation.sofar() - before;
                if (allocated > (1 << 20) + BUFFER + (1 << 20) + 64L * input.length) {
                    fail("input " + i + " of " + input.length + " bytes made the reader allocate " + allocated + " bytes");
                }
            }
        });
        System.out.printf("agent frame fuzz seed %d: %d inputs, %d read to the end, %d rejected, %d bad CALL payloads%n",
                seed, iterations, outcome[0], outcome[1], outcome[2]);
        assertTrue(outcome[0] > 0 && outcome[1] > 0 && outcome[2] > 0, "the mutations must reach every outcome");
    }
}
