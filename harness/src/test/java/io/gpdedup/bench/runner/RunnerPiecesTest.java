package io.gpdedup.bench.runner;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.bench.model.Published;
import io.gpdedup.bench.model.ReferenceSize;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The live runners' small parts: sizes, timelines, the store trace, TOCs, table data, checks. */
class RunnerPiecesTest {
    @Test
    void referenceSizesAreBinaryAsThePublishedMegabytes() {
        assertEquals(1L << 30, ReferenceSize.parse("1GB"));
        assertEquals(1L << 30, ReferenceSize.parse("1 GiB"));
        assertEquals(256L << 20, ReferenceSize.parse("256MB"));
        assertEquals(3L << 29, ReferenceSize.parse("1.5g"));
        assertEquals(123, ReferenceSize.parse("123"));
        assertEquals(1024.0, ReferenceSize.mb(1L << 30));
        for (String bad : List.of("", "GB", "-1GB", "1XB", "0")) {
            assertThrows(IllegalArgumentException.class, () -> ReferenceSize.parse(bad), bad);
        }
    }

    @Test
    void timelineBucketsAndRatesAndRoundTrips() {
        Timeline t = new Timeline(1_000, 100);
        t.add(1_000, 10);
        t.add(1_099, 5);
        t.add(1_950, 20);
        t.add(500, 1);
        assertArrayEquals(new long[] {16, 0, 0, 0, 0, 0, 0, 0, 0, 20}, t.buckets());
        assertArrayEquals(new double[] {36}, t.ratePerSecond(1000));
        assertArrayEquals(new double[] {32, 40}, t.ratePerSecond(500));
        Timeline back = Timeline.decode(t.encode());
        assertArrayEquals(t.buckets(), back.buckets());
        assertEquals(t.startMs(), back.startMs());
        assertThrows(IllegalArgumentException.class, () -> t.ratePerSecond(150));
    }

    @Test
    void storeTraceReadsQuotedLabelsAndGroupsByHost(@TempDir Path dir) throws IOException {
        Path trace = dir.resolve("trace.csv");
        Files.writeString(trace, "kind,flow,label,start_ms,bytes\n"
                + "write,1,bench/backups/20250101/20250101000001/host0_file00,1000,100\n"
                + "write,2,bench/backups/20250101/20250101000001/host1_file03,1100,50\n"
                + "write,3,\"other,\"\"odd\"\" name\",1100,7\n"
                + "read,4,bench/backups/20250101/20250101000001/host1_file03,1200,9\n", StandardCharsets.UTF_8);
        List<StoreTrace.Row> rows = StoreTrace.read(trace);
        assertEquals(4, rows.size());
        assertEquals("other,\"odd\" name", rows.get(2).label());
        Timeline[] byHost = StoreTrace.timelines(rows, r -> r.kind().equals("write"), Isolated::hostOf, 2, 1000, 100);
        assertArrayEquals(new long[] {100}, byHost[0].buckets());
        assertArrayEquals(new long[] {0, 50}, byHost[1].buckets());
        assertTrue(StoreTrace.read(dir.resolve("absent.csv")).isEmpty());
        Files.writeString(trace, "kind,flow,label,start_ms,bytes\nwrite,1,x\n");
        assertThrows(IOException.class, () -> StoreTrace.read(trace));
    }

    @Test
    void tableFilesNameOidsAndSizes(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("tables.txt");
        Files.writeString(f, "# oid size\n16384 2GB\n\n16385 0\n");
        List<GpbackupSim.Table> t = GpbackupSimCommand.readFile(f);
        assertEquals(List.of(new GpbackupSim.Table(16384, 2L << 30), new GpbackupSim.Table(16385, 0)), t);
        Files.writeString(f, "16384\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> GpbackupSimCommand.readFile(f)).getMessage().contains("line 1"));
        assertThrows(IllegalArgumentException.class, () -> GpbackupSimCommand.readFile(dir.resolve("none")));
    }

    @Test
    void seedSampleKeepsTheMixProportions() throws IOException {
        var loaded = GpbackupSimCommand.load("seed003", 100);
        long empty = loaded.tables().stream().filter(t -> t.bytes() == 0).count();
        assertEquals(100, loaded.tables().size());
        assertEquals(28, empty);
        assertTrue(loaded.tables().get(0).bytes() >= loaded.tables().get(1).bytes(), "largest first, as gpbackup hands them out");
        assertTrue(GpbackupSimCommand.load("large", 100).tables().stream().allMatch(t -> t.bytes() >= 500L << 20));
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 7, 42})
    void tableStreamsAreAFunctionOfTableAndSegment(long seed) throws IOException {
        SplittableRandom r = new SplittableRandom(seed);
        int oid = 16_384 + r.nextInt(1000);
        int n = 1 + r.nextInt(300_000);
        ByteArrayOutputStream whole = new ByteArrayOutputStream();
        new TableStream(oid, 1).copy(whole, n);
        ByteArrayOutputStream pieces = new ByteArrayOutputStream();
        TableStream s = new TableStream(oid, 1);
        for (int left = n; left > 0; ) {
            int k = Math.min(left, 1 + r.nextInt(70_000));
            s.copy(pieces, k);
            left -= k;
        }
        assertArrayEquals(whole.toByteArray(), pieces.toByteArray());
        ByteArrayOutputStream other = new ByteArrayOutputStream();
        new TableStream(oid, 2).copy(other, n);
        assertFalse(java.util.Arrays.equals(whole.toByteArray(), other.toByteArray()), "another segment has other rows");
    }

    @Test
    void uniqueDataIsReproducibleAndDistinctPerStream() {
        byte[] a = new byte[1001];
        byte[] b = new byte[1001];
        byte[] c = new byte[1001];
        new UniqueData(UniqueData.seed(5, 1)).fill(a, 0, a.length);
        new UniqueData(UniqueData.seed(5, 1)).fill(b, 0, b.length);
        new UniqueData(UniqueData.seed(5, 2)).fill(c, 0, c.length);
        assertArrayEquals(a, b);
        assertFalse(java.util.Arrays.equals(a, c));
        assertTrue(UniqueData.seed(5, 1) != UniqueData.seed(6, 1));
    }

    @Test
    void runNamesAreValidGpbackupTimestampsAndHostsOwnAddresses() {
        for (long run : new long[] {0, 1, 59, 3599, 86_399, 86_400 + 61}) {
            String ts = Isolated.timestamp(run);
            assertTrue(ts.matches("20250101([01]\\d|2[0-3])[0-5]\\d[0-5]\\d"), ts);
        }
        assertEquals("127.0.0.2", Isolated.address(0));
        assertEquals("127.0.0.9", Isolated.address(7));
        assertEquals("host3_file07", HostMain.fileName(3, 7));
        assertEquals(Map.of("a", "1", "b", "x"), HostMain.options(new String[] {"--a", "1", "--b", "x"}));
        assertThrows(IllegalArgumentException.class, () -> HostMain.options(new String[] {"a", "1"}));
    }

    @Test
    void publishedCellsOfTablesBAndC() {
        assertArrayEquals(new double[] {Published.B_MBPS[1]}, IsolatedRun.publishedHost(1, 10));
        assertArrayEquals(Published.C_PER_HOST[2], IsolatedRun.publishedHost(8, 10));
        assertNull(IsolatedRun.publishedHost(8, 20));
        assertEquals(Published.C_TOTAL[1], IsolatedRun.publishedTotal(4, 10));
        assertTrue(Double.isNaN(IsolatedRun.publishedTotal(3, 10)));
        assertEquals(204, ChannelRun.published(1));
        assertTrue(Double.isNaN(ChannelRun.published(7)));
    }

    @Test
    void shapeChecksPassOnlyWhenEveryCheckDoes() {
        ShapeChecks c = new ShapeChecks("t");
        c.greater("a beats b", 2, 1);
        c.close("near", 105, 100, 0.1);
        assertTrue(c.passed());
        c.close("far", 125, 100, 0.2);
        assertFalse(c.passed());
        assertEquals(3, c.table().rows().size());
        assertEquals("FAILED", c.table().rows().get(2).get(1));
    }
}
