package io.gpdedup.store.reliability;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.protocol.report.VerifyReport;
import io.gpdedup.protocol.wire.ChunkUpload;
import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.FrameCodec;
import io.gpdedup.protocol.wire.Message;
import io.gpdedup.protocol.wire.ProtocolVersions;
import io.gpdedup.protocol.wire.ReplicaTarget;
import io.gpdedup.protocol.wire.ReplicationJobStatus;
import io.gpdedup.protocol.wire.Reply;
import io.gpdedup.protocol.wire.Request;
import io.gpdedup.protocol.wire.StoreProtocolException;
import io.gpdedup.testsupport.Mutator;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Seeded fuzzing of {@link FrameCodec#decode}: mutated valid frames of every shape either decode
 * or fail with {@link StoreProtocolException}, never anything else, and never allocate more than a
 * small multiple of the input (a forged count must not drive an allocation).
 */
class FrameCodecFuzzTest {
    /**
     * Allocation allowed per decode: proportional to the input, plus a constant for the objects and
     * exception made (and the odd class initialisation); a count forged up to 2^32 would be far above.
     */
    private static final long ALLOC_PER_INPUT_BYTE = 16;
    private static final long ALLOC_CONSTANT = 1 << 20;

    static List<byte[]> samples() {
        Fingerprint fp = Fingerprint.compute(new byte[] {1, 2, 3}, 0, 3);
        byte[] sha = new byte[32];
        List<ChunkRef> refs = List.of(new ChunkRef(fp, 3), new ChunkRef(fp, 3));
        List<Message> messages = List.of(
                new Request.Hello(ProtocolVersions.SUPPORTED),
                new Request.Auth("unit", "user", "password"),
                new Request.BeginBackup(),
                new Request.Missing(7, List.of(fp, fp, fp)),
                new Request.PutChunks(7, List.of(new ChunkUpload(fp, Codec.NONE, 3, new byte[] {1, 2, 3}))),
                new Request.AppendRecipe(7, refs),
                new Request.Commit(7, "dir/object", 6, sha, refs),
                new Request.GetRecipe("dir/object"),
                new Request.GetChunks(List.of(fp, fp)),
                new Request.ListObjects("dir/"),
                new Request.DeleteObject("dir/object"),
                new Request.Ping(),
                new Request.Replicate("dir/", new ReplicaTarget("dr", 7411, "unit", "user", "dr/dir/"), "password"),
                new Reply.HelloOk(1, 16 << 20, 65536),
                new Reply.MissingBitmap(new boolean[] {true, false, true, true, false, false, true, false, true}),
                new Reply.RecipePart(6, sha, refs),
                new Reply.ChunksPart(List.of(new StoredChunk(Codec.NONE, 3, new byte[] {1, 2, 3}))),
                new Reply.ObjectsPart(List.of(new ObjectInfo("dir/object", 6, 1_700_000_000_000L))),
                new Reply.VerifyResult(new VerifyReport(1, 2, 3, List.of("a", "b"), List.of("problem"))),
                new Reply.ReplicationJobsPart(List.of(new ReplicationJobStatus(3, "dir/", new ReplicaTarget("dr", 7411, "unit", "user", "dr/dir/"),
                        ReplicationJobStatus.State.QUEUED, 2, 1, 2, 3, 4, 5, 6, "remote down"))),
                new Reply.Error(ErrorCode.STORE_ERROR, "no such chunk"));
        List<byte[]> out = new ArrayList<>();
        int id = 1;
        for (Message m : messages) {
            ByteBuffer b = FrameCodec.encode(Frame.of(id++, m));
            byte[] bytes = new byte[b.remaining()];
            b.get(bytes);
            out.add(bytes);
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(longs = {20261123L, 7L})
    void mutatedFramesDecodeOrFailCleanly(long seed) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        int iterations = Mutator.iterations();
        long[] outcome = new long[2];
        assertTimeoutPreemptively(Duration.ofMinutes(30), () -> {
            long self = Thread.currentThread().getId();
            Mutator mutator = new Mutator(seed, samples());
            for (int i = 0; i < iterations; i++) {
                byte[] input = mutator.next();
                // FrameCodec.decode takes what follows the length field; the length field is fuzzed
                // through the real server in ServerDecoderFuzzTest.
                ByteBuffer body = ByteBuffer.wrap(input, Math.min(4, input.length), Math.max(0, input.length - 4));
                long before = threads.getThreadAllocatedBytes(self);
                try {
                    FrameCodec.decode(body.slice());
                    outcome[0]++;
                } catch (StoreProtocolException expected) {
                    outcome[1]++;
                } catch (RuntimeException e) {
                    fail("input " + i + " (seed " + seed + ") threw " + e + " instead of StoreProtocolException: " + hex(input), e);
                }
                long allocated = threads.getThreadAllocatedBytes(self) - before;
                if (allocated > ALLOC_CONSTANT + ALLOC_PER_INPUT_BYTE * input.length) {
                    fail("input " + i + " of " + input.length + " bytes made decode allocate " + allocated + " bytes: " + hex(input));
                }
            }
        });
        System.out.printf("frame codec fuzz seed %d: %d inputs, %d decoded, %d rejected%n", seed, iterations, outcome[0], outcome[1]);
        assertTrue(outcome[1] > 0 && outcome[0] > 0, "the mutations must reach both outcomes");
    }

    static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < Math.min(b.length, 256); i++) {
            sb.append(String.format("%02x", b[i]));
        }
        return sb + (b.length > 256 ? "..." : "");
    }
}
