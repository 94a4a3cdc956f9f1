package io.gpdedup.store.container;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.gpdedup.protocol.model.Fingerprint;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContainerScannerTest {
    @TempDir
    Path dir;

    private List<long[]> fill(Container c, int records) throws Exception {
        Random r = new Random(1);
        List<long[]> where = new ArrayList<>();
        for (int i = 0; i < records; i++) {
            byte[] payload = new byte[100 + r.nextInt(2000)];
            r.nextBytes(payload);
            byte[] rec = new ChunkRecord(Fingerprint.compute(payload, 0, payload.length), 0, payload.length, payload).encode();
            where.add(new long[] {c.append(rec), rec.length});
        }
        return where;
    }

    @Test
    void recordRoundTripsAndDetectsDamage() {
        byte[] payload = {1, 2, 3, 4, 5};
        ChunkRecord rec = new ChunkRecord(Fingerprint.compute(payload, 0, 5), 2, 77, payload);
        byte[] bytes = rec.encode();
        assertEquals(ChunkRecord.OVERHEAD + 5, bytes.length);
        ChunkRecord back = ChunkRecord.decode(bytes);
        assertEquals(rec.fingerprint(), back.fingerprint());
        assertEquals(2, back.codecId());
        assertEquals(77, back.rawLength());
        assertArrayEquals(payload, back.payload());
        for (int i = 0; i < bytes.length; i++) {
            byte[] bad = bytes.clone();
            bad[i] ^= 0x20;
            assertThrows(CorruptRecordException.class, () -> ChunkRecord.decode(bad), "flipped byte " + i);
        }
    }

    @Test
    void cleanContainerScansWhole() throws Exception {
        try (Container c = Container.create(dir, 1)) {
            List<long[]> where = fill(c, 20);
            List<Long> seen = new ArrayList<>();
            ContainerScanner.ScanResult r = ContainerScanner.scan(c, Container.HEADER_BYTES, (fp, off, len) -> seen.add(off));
            assertEquals(20, r.records());
            assertEquals(0, r.truncatedBytes());
            assertEquals(where.stream().map(w -> w[0]).toList(), seen);
        }
    }

    @Test
    void tornTailIsTruncated() throws Exception {
        Path p;
        long cutAt;
        try (Container c = Container.create(dir, 1)) {
            List<long[]> where = fill(c, 10);
            p = c.path();
            cutAt = where.get(9)[0];
        }
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.setLength(cutAt + 60);
        }
        try (Container c = Container.open(p, 1)) {
            ContainerScanner.ScanResult r = ContainerScanner.scan(c, Container.HEADER_BYTES, (fp, off, len) -> { });
            assertEquals(9, r.records());
            assertEquals(60, r.truncatedBytes());
            assertEquals(cutAt, c.size());
            assertEquals(cutAt, p.toFile().length());
        }
    }

    @Test
    void damageInTheMiddleIsSkippedNotTruncated() throws Exception {
        Path p;
        List<long[]> where;
        try (Container c = Container.create(dir, 1)) {
            where = fill(c, 10);
            p = c.path();
        }
        long size = p.toFile().length();
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.seek(where.get(4)[0] + 50);
            f.write(0xEE);
        }
        try (Container c = Container.open(p, 1)) {
            List<Long> seen = new ArrayList<>();
            ContainerScanner.ScanResult r = ContainerScanner.scan(c, Container.HEADER_BYTES, (fp, off, len) -> seen.add(off));
            assertEquals(9, r.records());
            assertEquals(where.get(4)[1], r.damagedBytes());
            assertEquals(0, r.truncatedBytes());
            assertEquals(size, c.size());
            assertEquals(where.get(5)[0], seen.get(4));
        }
    }

    @Test
    void fileNamesRoundTrip() {
        assertEquals("00000001.ctr", Container.fileName(1));
        assertEquals(1, Container.idOf("00000001.ctr"));
        assertEquals(2_000_000_000, Container.idOf(Container.fileName(2_000_000_000)));
        assertEquals(-1, Container.idOf("1.ctr"));
        assertEquals(-1, Container.idOf("00000001.ctr.tmp"));
        assertEquals(-1, Container.idOf("0000000a.ctr"));
    }
}
