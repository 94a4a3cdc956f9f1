package io.gpdedup.store.s3;

import io.gpdedup.store.container.OwnerOnly;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The local cache directory holds nothing that must survive: it is emptied at start. */
final class CacheDirs {
    private CacheDirs() {
    }

    /** Creates {@code dir} if needed and deletes everything in it. */
    static void empty(Path dir) throws IOException {
        OwnerOnly.createDirectories(dir);
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                if (!p.equals(dir)) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
