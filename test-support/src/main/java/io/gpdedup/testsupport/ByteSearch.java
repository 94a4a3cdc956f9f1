package io.gpdedup.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
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

    /**
     * The regular files under {@code root} whose bytes hold {@code needle}. A file gone between the
     * listing and its read is passed over: a server writing meanwhile (S3Proxy writes each object to
     * a temporary file first, then renames it) leaves its bytes in a file of their own.
     */
    public static List<Path> filesContaining(Path root, byte[] needle) throws IOException {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                byte[] bytes;
                try {
                    bytes = Files.readAllBytes(p);
                } catch (NoSuchFileException gone) {
                    continue;
                }
                if (indexOf(bytes, needle) >= 0) {
                    out.add(p);
                }
            }
        }
        return out;
    }
}
