package io.gpdedup.store.container;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Modes of what {@link OwnerOnly} makes, in this JVM's umask; the control is a file and a directory
 * the JDK makes by default in the same place (the end-to-end OwnerOnlyFilesTest sets the umask itself).
 */
class OwnerOnlyTest {
    @TempDir
    Path dir;

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    @Test
    void filesAre0600AndDirectories0700() throws IOException {
        Files.createDirectory(dir.resolve("control-dir"));
        Files.writeString(dir.resolve("control-file"), "x");
        assumeTrue(!mode(dir.resolve("control-file")).equals("rw-------"), "this JVM's umask already keeps files private");

        Path deep = OwnerOnly.createDirectories(dir.resolve("a").resolve("b"));
        assertEquals("rwx------", mode(dir.resolve("a")));
        assertEquals("rwx------", mode(deep));
        OwnerOnly.write(deep.resolve("w"), new byte[] {1, 2, 3});
        assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(deep.resolve("w")));
        OwnerOnly.writeString(deep.resolve("s"), "text");
        try (OutputStream out = OwnerOnly.newOutputStream(deep.resolve("o"))) {
            out.write(7);
        }
        try (FileChannel ch = OwnerOnly.open(deep.resolve("c"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        for (String f : new String[] {"w", "s", "o", "c"}) {
            assertEquals("rw-------", mode(deep.resolve(f)), f);
        }
    }

    @Test
    void tightenClosesAnOpenDirectoryAndLeavesAPrivateOneAlone() throws IOException {
        Path open = Files.createDirectory(dir.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-x--x"));
        OwnerOnly.tighten(open, "data directory");
        assertEquals("rwx------", mode(open));
        Path tight = Files.createDirectory(dir.resolve("tight"));
        Files.setPosixFilePermissions(tight, PosixFilePermissions.fromString("r-x------"));
        OwnerOnly.tighten(tight, "data directory");
        assertEquals("r-x------", mode(tight));
    }
}
