package io.gpdedup.store.container;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.gpdedup.store.chunk.Fingerprint;
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

    private static RegionRecord region(long seed, int members) {
        Random r = new Random(seed);
        List<RegionRecord.Member> list = new ArrayList<>();
        for (int i = 0; i < members; i++) {
            byte[] chunk = new byte[50 + r.nextInt(500)];
            r.nextBytes(chunk);
            list.add(new RegionRecord.Member(Fingerprint.compute(chunk, 0, chunk.length), chunk.length));
        }
        byte[] payload = new byte[300];
        r.nextBytes(payload);
        return new RegionRecord(2, list, payload);
    }

    @Test
    void regionRoundTripsAndDetectsDamage() {
        RegionRecord region = region(3, 3);
        byte[] bytes = region.encode();
        assertEquals(RegionRecord.FIXED_HEADER_BYTES + 3 * RegionRecord.MEMBER_BYTES + 300 + 4, bytes.length);
        assertEquals(bytes.length, RegionRecord.lengthFromHeader(java.util.Arrays.copyOf(bytes, RegionRecord.FIXED_HEADER_BYTES)));
        RegionRecord back = RegionRecord.decode(java.nio.ByteBuffer.wrap(bytes));
        assertEquals(region.members(), back.members());
        assertEquals(2, back.codecId());
        assertEquals(region.rawLength(), back.rawLength());
        assertArrayEquals(region.payload(), back.payload());
        for (int i = 0; i < bytes.length; i++) {
            byte[] bad = bytes.clone();
            bad[i] ^= 0x20;
            assertThrows(CorruptRecordException.class, () -> RegionRecord.decode(java.nio.ByteBuffer.wrap(bad)), "flipped byte " + i);
        }
    }

    @Test
    void aRegionIsOneRecordWhoseMembersAfterTheFirstShareItsLength() throws Exception {
        try (Container c = Container.create(dir, 1)) {
            fill(c, 2);
            byte[] region = region(4, 3).encode();
            long at = c.append(region);
            fill(c, 1);
            List<String> seen = new ArrayList<>();
            ContainerScanner.ScanResult r = ContainerScanner.scan(c, Container.HEADER_BYTES, (fp, off, len) -> {
                if (off == at) {
                    seen.add(fp + "/" + len);
                }
            });
            assertEquals(4, r.records());
            List<RegionRecord.Member> members = region(4, 3).members();
            assertEquals(List.of(members.get(0).fingerprint() + "/" + region.length, members.get(1).fingerprint() + "/0",
                    members.get(2).fingerprint() + "/0"), seen);
        }
    }

    @Test
    void aDamagedRegionIsSkippedAndTheRecordsAfterItAreKept() throws Exception {
        try (Container c = Container.create(dir, 1)) {
            fill(c, 1);
            byte[] region = region(5, 2).encode();
            long at = c.append(region);
            List<long[]> after = fill(c, 2);
            try (RandomAccessFile f = new RandomAccessFile(c.path().toFile(), "rw")) {
                f.seek(at + region.length - 10);
                f.write(0x55 ^ region[region.length - 10]);
            }
            List<Long> seen = new ArrayList<>();
            ContainerScanner.ScanResult r = ContainerScanner.scan(c, Container.HEADER_BYTES, (fp, off, len) -> seen.add(off));
            assertEquals(3, r.records());
            assertEquals(region.length, r.damagedBytes());
            assertEquals(List.of(after.get(0)[0], after.get(1)[0]), seen.subList(1, 3));
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
