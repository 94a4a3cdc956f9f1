package io.gpdedup.testsupport;

/** Where a run of bytes stands in others: how the tests look for a backed-up marker in what a store wrote. */
public final class ByteSearch {
    private ByteSearch() {
    }

    /** The first index of {@code needle} in {@code hay}, or -1. */
    public static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
