package io.gpdedup.dedup.chunk;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Pins chunk boundaries. These values are deliberately frozen: stored recipes reference chunks by
 * the fingerprints of exactly these cuts, so a change to the gear table, the masks or the cut rule
 * would make every new backup miss every chunk already stored. If this test fails, the change is a
 * new chunking format; it needs a format version and must not replace the old one for existing
 * storage units. Do not "fix" it by updating the numbers.
 *
 * <p>Input: {@code new java.util.Random(seed).nextBytes(...)}, whose algorithm the JDK specifies.
 */
class ChunkerRegressionTest {

    @Test
    void gearTableIsFrozen() {
        long[] gear = GearTable.GEAR;
        assertEquals(PINNED_GEAR_0, gear[0]);
        assertEquals(PINNED_GEAR_1, gear[1]);
        assertEquals(PINNED_GEAR_255, gear[255]);
        long xor = 0;
        for (long g : gear) {
            xor = Long.rotateLeft(xor, 1) ^ g;
        }
        assertEquals(PINNED_GEAR_MIX, xor);
    }

    @Test
    void boundariesOfSmallParamsAreFrozen() {
        Chunker chunker = new Chunker(ChunkerParams.ofAverage(4096));
        List<Integer> lengths = Chunks.cutAll(chunker, Chunks.random(20240501L, 64 << 10));
        assertEquals(PINNED_SMALL, lengths);
    }

    @Test
    void boundariesOfLargeParamsAreFrozen() {
        Chunker chunker = new Chunker(new ChunkerParams(65536, 262144, 1048576));
        List<Integer> lengths = Chunks.cutAll(chunker, Chunks.random(20240502L, 8 << 20));
        assertEquals(PINNED_LARGE, lengths);
    }

    // Pinned on first implementation (see class comment before touching).
    private static final long PINNED_GEAR_0 = 0xE6F20C927C92B809L;
    private static final long PINNED_GEAR_1 = 0x6E94BB35139E7FB2L;
    private static final long PINNED_GEAR_255 = 0x600ABA7AEABEDB07L;
    private static final long PINNED_GEAR_MIX = 0xA1DC0E7246170460L;
    private static final List<Integer> PINNED_SMALL = List.of(
            4364, 1241, 3876, 4847, 4309, 5698, 4199, 4894, 5092, 4157, 2383, 4431, 8281, 6211, 1553);
    private static final List<Integer> PINNED_LARGE = List.of(
            108009, 281895, 358777, 331015, 366304, 315859, 330636, 263430, 483617, 196799, 356625,
            85421, 294394, 365256, 607862, 304709, 278197, 314237, 301832, 114904, 341666, 243012,
            310722, 352389, 149615, 267726, 131610, 147702, 83079, 283490, 17819);
}
