package io.gpdedup.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GenerationPlanTest {
    @ParameterizedTest
    @CsvSource({"20, 1, 6, 13", "40, 2, 11, 27", "100, 5, 28, 67", "31200, 1560, 8736, 20904"})
    void mixMatchesThePublishedShares(int tables, int large, int empty, int small) {
        GenerationPlan plan = GenerationPlan.of(tables, 100_000_000, 7);
        assertEquals(tables, plan.tables().size());
        assertEquals(large, count(plan, GenerationPlan.Kind.LARGE));
        assertEquals(empty, count(plan, GenerationPlan.Kind.EMPTY));
        assertEquals(small, count(plan, GenerationPlan.Kind.SMALL));
    }

    @ParameterizedTest
    @CsvSource({"20, 3", "40, 11", "300, 12345"})
    void largeTablesHoldAboutThreeQuartersOfTheBytes(int tables, long seed) {
        long total = 64_000_000;
        GenerationPlan plan = GenerationPlan.of(tables, total, seed);
        long large = plan.tables().stream().filter(t -> t.kind() == GenerationPlan.Kind.LARGE).mapToLong(GenerationPlan.Table::bytes).sum();
        assertEquals(GenerationPlan.LARGE_SHARE_OF_BYTES, (double) large / total, 0.001);
        assertEquals(total, plan.totalBytes(), tables);
        long smallest = plan.tables().stream().filter(t -> t.kind() == GenerationPlan.Kind.LARGE).mapToLong(GenerationPlan.Table::bytes).min().orElseThrow();
        long biggestSmall = plan.tables().stream().filter(t -> t.kind() == GenerationPlan.Kind.SMALL).mapToLong(GenerationPlan.Table::bytes).max().orElseThrow();
        assertTrue(smallest > biggestSmall, "every large table is larger than every small one");
        assertTrue(plan.tables().stream().filter(t -> t.kind() == GenerationPlan.Kind.EMPTY).allMatch(t -> t.bytes() == 0));
    }

    @Test
    void sameSeedSamePlanOtherSeedOtherSizes() {
        assertEquals(GenerationPlan.of(30, 1_000_000, 5), GenerationPlan.of(30, 1_000_000, 5));
        assertNotEquals(GenerationPlan.of(30, 1_000_000, 5), GenerationPlan.of(30, 1_000_000, 6));
    }

    @Test
    void tooFewTablesIsAClearError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> GenerationPlan.of(1, 1000, 1));
        assertTrue(e.getMessage().contains("--tables"), e.getMessage());
    }

    private static long count(GenerationPlan plan, GenerationPlan.Kind kind) {
        return plan.tables().stream().filter(t -> t.kind() == kind).count();
    }
}
