package io.gpdedup.protocol.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.StoredChunk;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplyPartsTest {
    private static final int MAX_FRAME = 4096;

    @Test
    void aLongListIsCutIntoFullFramesInOrder() {
        List<ObjectInfo> objects = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            objects.add(new ObjectInfo("backups/20250101/20250101000000/object-" + i, i, 1000L + i));
        }
        List<Reply> parts = new ArrayList<>();
        Reply last = ReplyParts.split(new Reply.ObjectsPart(objects), MAX_FRAME, parts::add);
        parts.add(last);
        assertTrue(parts.size() > 5, parts.size() + " parts");
        List<ObjectInfo> joined = new ArrayList<>();
        for (int i = 0; i < parts.size(); i++) {
            int length = FrameCodec.frameLength(Frame.of(1, parts.get(i)));
            assertTrue(length <= MAX_FRAME, "part " + i + " is " + length + " bytes");
            if (i < parts.size() - 1) {
                int next = new Reply.ObjectsPart(List.of()).entrySize(((Reply.ObjectsPart) parts.get(i + 1)).objects().get(0));
                assertTrue(length + next > MAX_FRAME, "part " + i + " was cut before it was full");
            }
            joined.addAll(((Reply.ObjectsPart) parts.get(i)).objects());
        }
        assertEquals(objects, joined);
    }

    @Test
    void everyPartRepeatsTheFixedFields() {
        byte[] sha = new byte[32];
        sha[0] = 7;
        List<ChunkRef> refs = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            refs.add(new ChunkRef(Fingerprint.compute(new byte[] {(byte) i, (byte) (i >> 8)}, 0, 2), i + 1));
        }
        List<Reply> parts = new ArrayList<>();
        parts.add(ReplyParts.split(new Reply.RecipePart(12345, sha, refs), MAX_FRAME, parts::add));
        assertTrue(parts.size() > 1);
        for (Reply r : parts) {
            Reply.RecipePart p = (Reply.RecipePart) r;
            assertEquals(12345, p.totalLength());
            assertEquals(7, p.streamSha256()[0]);
        }
    }

    @Test
    void anEmptyListIsOneEmptyReplyAndAnEntryTooBigIsRefused() {
        List<Reply> full = new ArrayList<>();
        Reply last = ReplyParts.split(new Reply.ChunksPart(List.of()), MAX_FRAME, full::add);
        assertEquals(List.of(), full);
        assertEquals(new Reply.ChunksPart(List.of()), last);
        ReplyParts<StoredChunk> parts = new ReplyParts<>(new Reply.ChunksPart(List.of()), MAX_FRAME, full::add);
        assertThrows(IllegalArgumentException.class, () -> parts.add(new StoredChunk(Codec.NONE, MAX_FRAME, new byte[MAX_FRAME])));
    }
}
