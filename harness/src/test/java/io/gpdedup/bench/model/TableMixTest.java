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
    void sameSeedSameDatabase() {
        assertEquals(TableMix.seed003().tables(), TableMix.seed003().tables());
    }
}
