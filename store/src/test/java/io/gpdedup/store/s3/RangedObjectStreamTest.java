package io.gpdedup.store.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** An object read as parallel ranged GETs, against a real S3 server (S3Proxy). */
@Timeout(300)
class RangedObjectStreamTest {
    @TempDir
    Path dir;

    @Test
    void readsAnObjectInOrderWhateverThePartSize() throws Exception {
        byte[] data = new byte[300_007];
        new Random(7).nextBytes(data);
        try (Bucket b = Bucket.open(TestBuckets.fresh("ranged-read", dir))) {
            b.put("obj", data);
            for (int[] shape : new int[][] {{1 << 20, 4}, {65_536, 3}, {4_096, 1}, {100_003, 8}}) {
                try (RangedObjectStream in = RangedObjectStream.open(b, "obj", shape[0], shape[1]).orElseThrow()) {
                    assertEquals(data.length, in.length());
                    assertArrayEquals(data, in.readAllBytes(), "parts of " + shape[0] + ", " + shape[1] + " ahead");
                    assertEquals(-1, in.read());
                }
            }
            try (RangedObjectStream in = RangedObjectStream.open(b, "obj", 1_000, 2).orElseThrow()) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                for (int i = 0; i < 2_500; i++) {
                    out.write(in.read()); // single bytes across part boundaries
                }
                out.write(in.readAllBytes());
                assertArrayEquals(data, out.toByteArray());
            }
            assertTrue(RangedObjectStream.open(b, "none", 1_000, 2).isEmpty());
            b.put("empty", new byte[0]);
            try (RangedObjectStream in = RangedObjectStream.open(b, "empty", 1_000, 2).orElseThrow()) {
                assertEquals(0, in.length());
                assertEquals(-1, in.read());
            }
        }
    }

    @Test
    void anObjectReplacedWhileItIsReadIsAConflictNotAMixture() throws Exception {
        byte[] first = new byte[10_000];
        byte[] second = new byte[10_000];
        new Random(1).nextBytes(first);
        new Random(2).nextBytes(second);
        try (Bucket b = Bucket.open(TestBuckets.fresh("ranged-change", dir))) {
            b.put("obj", first);
            try (RangedObjectStream in = RangedObjectStream.open(b, "obj", 1_000, 1).orElseThrow()) {
                b.put("obj", second); // parts from the third on are asked for after this
                BucketException e = assertThrows(BucketException.class, in::readAllBytes);
                assertEquals(BucketException.Kind.CONFLICT, e.kind(), e.getMessage());
            }
            try (RangedObjectStream in = RangedObjectStream.open(b, "obj", 1_000, 1).orElseThrow()) {
                assertArrayEquals(second, in.readAllBytes(), "the control: unchanged meanwhile, it reads whole");
            }
        }
    }
}
