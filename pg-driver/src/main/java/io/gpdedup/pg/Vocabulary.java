package io.gpdedup.pg;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

/**
 * Pseudo-words drawn with a Zipf-like law, so long text compresses like prose (frequent short
 * words, a long tail of rarer ones) without shipping a corpus. The word list is built from a fixed
 * seed: changing it changes every generated stream.
 */
final class Vocabulary {
    static final int WORDS = 8192;
    /** Longest word in bytes. */
    static final int MAX_WORD = 12;

    private static final String[] ONSETS = {"", "b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s",
        "t", "v", "w", "st", "tr", "pl", "gr", "ch", "sh", "th"};
    private static final String[] NUCLEI = {"a", "e", "i", "o", "u", "ea", "ou", "ai"};
    private static final String[] CODAS = {"", "", "", "n", "r", "s", "t", "l", "nd", "st", "ng"};
    private static final int SAMPLE_BITS = 17;

    private final byte[] text;
    private final int[] start;
    private final short[] byRank;

    Vocabulary(double zipfExponent) {
        RowRandom random = new RowRandom().reseed(0x766f636162L, 0, 0);
        StringBuilder all = new StringBuilder();
        start = new int[WORDS + 1];
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < WORDS; i++) {
            // Frequent ranks get fewer syllables, as in natural languages.
            int syllables = 1 + (i < 64 ? 0 : i < 1024 ? random.nextInt(2) : 1 + random.nextInt(2));
            String word;
            do {
                StringBuilder w = new StringBuilder();
                for (int s = 0; s < syllables; s++) {
                    w.append(ONSETS[random.nextInt(ONSETS.length)]).append(NUCLEI[random.nextInt(NUCLEI.length)]);
                }
                w.append(CODAS[random.nextInt(CODAS.length)]);
                word = w.length() > MAX_WORD ? w.substring(0, MAX_WORD) : w.toString();
            } while (!seen.add(word));
            start[i] = all.length();
            all.append(word);
        }
        start[WORDS] = all.length();
        text = all.toString().getBytes(StandardCharsets.US_ASCII);
        byRank = zipfTable(zipfExponent);
    }

    /** Maps a uniform 17-bit sample to a word index; ranks too rare for one slot never appear. */
    private static short[] zipfTable(double exponent) {
        double[] weight = new double[WORDS];
        double total = 0;
        for (int r = 0; r < WORDS; r++) {
            weight[r] = 1.0 / Math.pow(r + 1, exponent);
            total += weight[r];
        }
        short[] table = new short[1 << SAMPLE_BITS];
        double cumulative = 0;
        int rank = 0;
        for (int slot = 0; slot < table.length; slot++) {
            double point = (slot + 0.5) / table.length * total;
            while (cumulative + weight[rank] < point && rank < WORDS - 1) {
                cumulative += weight[rank];
                rank++;
            }
            table[slot] = (short) rank;
        }
        return table;
    }

    /** Appends a random word at {@code dst[off]} and returns the offset after it. */
    int appendWord(RowRandom random, byte[] dst, int off) {
        int w = byRank[random.nextInt(1 << SAMPLE_BITS)];
        int len = start[w + 1] - start[w];
        System.arraycopy(text, start[w], dst, off, len);
        return off + len;
    }
}
