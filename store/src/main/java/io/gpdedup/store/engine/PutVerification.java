package io.gpdedup.store.engine;

import java.util.Locale;

/**
 * How much of what clients upload the store decodes and re-hashes before it keeps it. Decoding and
 * hashing every new chunk costs the store about as much CPU as the client spends fingerprinting and
 * compressing it; restores check every chunk's SHA-256 anyway and {@code verify} re-hashes
 * everything, so a full check at put time only moves the discovery of a bad upload earlier.
 */
public enum PutVerification {
    /** Every new chunk: a client that lies about a single chunk is refused at once. */
    ALL,
    /**
     * The first new chunk of each unit after start and then one in {@value #SAMPLE_EVERY}: a client
     * with a systematic fault (wrong codec, wrong hash, bytes shifted) is refused within a batch, at
     * about 1/{@value #SAMPLE_EVERY} of the cost.
     */
    SAMPLE,
    /** None: only structural checks (lengths, an uncompressed payload's size). */
    NONE;

    static final int SAMPLE_EVERY = 64;

    /** Whether the {@code n}-th new chunk (counted from 0 since the unit opened) is to be checked. */
    boolean checks(long n) {
        return switch (this) {
            case ALL -> true;
            case SAMPLE -> n % SAMPLE_EVERY == 0;
            case NONE -> false;
        };
    }

    /** {@code all}, {@code sample} or {@code none}, as the store's config writes it. */
    public static PutVerification parse(String s) {
        for (PutVerification v : values()) {
            if (v.name().toLowerCase(Locale.ROOT).equals(s)) {
                return v;
            }
        }
        throw new IllegalArgumentException("verify-on-put must be all, sample or none, not '" + s + "'");
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
