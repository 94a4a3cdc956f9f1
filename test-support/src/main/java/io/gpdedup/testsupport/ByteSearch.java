package io.gpdedup.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

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

    /** The regular files under {@code root} whose bytes hold {@code needle}. */
    public static List<Path> filesContaining(Path root, byte[] needle) throws IOException {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                if (indexOf(Files.readAllBytes(p), needle) >= 0) {
                    out.add(p);
                }
            }
        }
        return out;
    }
}
