package io.gpdedup.bench.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.bench.model.TableMix.Kind;
import io.gpdedup.bench.model.TableMix.Table;
import java.util.List;
import org.junit.jupiter.api.Test;

class TableMixTest {
    @Test
    void seedMixHasThePublishedShape() {
        TableMix mix = TableMix.seed003();
        List<Table> all = mix.tables();
        assertEquals(31_200, all.size());
        assertEquals(1_560, all.stream().filter(t -> t.kind() == Kind.LARGE).count());
        assertEquals(8_736, all.stream().filter(t -> t.kind() == Kind.EMPTY).count());
        assertEquals(3 * TableMix.TIB, TableMix.totalBytes(all), TableMix.TIB * 1e-9);
        assertEquals(0.6 * TableMix.TIB, TableMix.totalBytes(mix.select(Published.Tables.SMALL)), TableMix.TIB * 1e-9);
        double threshold = 500 * TableMix.MIB;
        assertTrue(all.stream().filter(t -> t.kind() == Kind.LARGE).allMatch(t -> t.bytes() >= threshold));
        assertTrue(all.stream().filter(t -> t.kind() == Kind.SMALL).allMatch(t -> t.bytes() > 0 && t.bytes() <= threshold));
        List<Table> large = mix.select(Published.Tables.LARGE);
        for (int i = 1; i < large.size(); i++) {
            assertTrue(large.get(i - 1).bytes() >= large.get(i).bytes(), "largest first");
        }
    }

    @Test
    void aSiteKeepsTheSeedsShapeAtItsOwnSize() {
        assertEquals(TableMix.seed003().tables(), TableMix.site(31_200, 3 * TableMix.TIB, 0.28).tables());
        double bytes = 100 * 1024 * TableMix.MIB;
        TableMix mix = TableMix.site(1_000, bytes, 0.1);
        List<Table> all = mix.tables();
        assertEquals(1_000, all.size());
        assertEquals(50, mix.select(Published.Tables.LARGE).size());
        assertEquals(100, all.stream().filter(t -> t.kind() == Kind.EMPTY).count());
        assertEquals(bytes, TableMix.totalBytes(all), bytes * 1e-9);
        assertEquals(0.8 * bytes, TableMix.totalBytes(mix.select(Published.Tables.LARGE)), bytes * 1e-9);
        double smallest = mix.select(Published.Tables.LARGE).get(49).bytes();
        assertTrue(mix.select(Published.Tables.SMALL).stream().allMatch(t -> t.bytes() > 0 && t.bytes() <= smallest),
                "every large table is at least as large as every small one");
    }

    @Test
    void sameSeedSameDatabase() {
        assertEquals(TableMix.seed003().tables(), TableMix.seed003().tables());
    }
}
