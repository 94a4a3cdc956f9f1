package io.gpdedup.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** What a directory holds, to show that a refused command changed nothing on disk. */
public final class DiskSnapshot {
    private DiskSnapshot() {
    }

    /** Every path under {@code root}, relative to it, with the SHA-256 of a file's bytes or "dir". */
    public static Map<String, String> of(Path root) throws IOException {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every JDK", e);
        }
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.toList()) {
                out.put(root.relativize(p).toString(), Files.isRegularFile(p) ? HexFormat.of().formatHex(md.digest(Files.readAllBytes(p))) : "dir");
            }
        }
        return out;
    }
}
