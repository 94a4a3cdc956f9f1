package io.gpdedup.store.crypt;

import io.gpdedup.store.container.ChunkRecord;
import io.gpdedup.store.container.Container;
import io.gpdedup.store.container.ContainerScanner;
import io.gpdedup.store.container.FileSync;
import io.gpdedup.store.container.OwnerOnly;
import io.gpdedup.store.container.RecordFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Converts a plaintext unit directory to an encrypted one, on a stopped store (docs/store.md,
 * "Encryption at rest"). The sealed copies are built beside the plaintext ({@code containers.sealed/},
 * {@code recipes.sealed/}, {@code keys.new}); renaming {@code keys.new} to {@code keys} is the one
 * step that commits; the directory swaps after it are each safe to repeat. A run cut off before the
 * commit leaves the unit plaintext and is started over; one cut off after it is finished by the
 * next run. In between, the store refuses to open the unit rather than read a half-converted one.
 */
public final class UnitConversion {
    private static final String[] PARTS = {"containers", "recipes"};
    private static final String SEALED = ".sealed";
    private static final String PLAIN = ".plain";
    private static final String KEYS_NEW = DataKeys.FILE + ".new";

    /** What a run did. */
    public record Result(boolean alreadyEncrypted, int containers, long records, long damagedBytes, int recipes) {
    }

    private UnitConversion() {
    }

    /** Whether a conversion of the unit in {@code unitDir} was started and not finished. */
    public static boolean interrupted(Path unitDir) {
        if (Files.exists(unitDir.resolve(KEYS_NEW))) {
            return true;
        }
        for (String part : PARTS) {
            if (Files.exists(unitDir.resolve(part + SEALED)) || Files.exists(unitDir.resolve(part + PLAIN))) {
                return true;
            }
        }
        return false;
    }

    /** Converts (or finishes converting) the unit {@code unit} in {@code unitDir} so that its data keys are wrapped by {@code kek}. */
    public static Result convert(Path unitDir, String unit, Kek kek) throws IOException {
        if (DataKeys.present(unitDir)) {
            DataKeys.open(unitDir, unit, kek); // the key must open what a finished run leaves
            boolean finishing = interrupted(unitDir);
            finish(unitDir);
            return new Result(!finishing, 0, 0, 0, 0);
        }
        for (String part : PARTS) {
            deleteTree(unitDir.resolve(part + SEALED));
        }
        Files.deleteIfExists(unitDir.resolve(KEYS_NEW));
        Files.deleteIfExists(unitDir.resolve(KEYS_NEW + ".tmp"));
        DataKeys keys = DataKeys.create(unitDir.resolve(KEYS_NEW), unitDir, unit, kek);
        long[] counts = new long[2];
        int containers = sealContainers(unitDir, keys.records(), counts);
        int recipes = sealRecipes(unitDir, keys.blobs());
        // The plaintext snapshot goes before the commit: a cache, rebuilt by the first open's scan.
        Files.deleteIfExists(unitDir.resolve("index.snap"));
        Files.deleteIfExists(unitDir.resolve("index.snap.tmp"));
        FileSync.syncDirectory(unitDir);
        Files.move(unitDir.resolve(KEYS_NEW), unitDir.resolve(DataKeys.FILE), StandardCopyOption.ATOMIC_MOVE);
        FileSync.syncDirectory(unitDir);
        finish(unitDir);
        return new Result(false, containers, counts[0], counts[1], recipes);
    }

    private static int sealContainers(Path unitDir, RecordFormat sealed, long[] counts) throws IOException {
        Path from = unitDir.resolve("containers");
        Path to = OwnerOnly.createDirectories(unitDir.resolve("containers" + SEALED));
        int n = 0;
        for (Path p : list(from)) {
            int id = Container.idOf(p.getFileName().toString());
            if (id < 0 || Files.size(p) < Container.HEADER_BYTES && Files.size(p) != Container.V1_HEADER_BYTES) {
                continue; // a torn creation, which the store deletes at open
            }
            try (Container in = Container.open(p, id); Container out = Container.create(to, id)) {
                ContainerScanner.ScanResult r = ContainerScanner.scan(in, in.dataStart(), (fp, offset, length) -> {
                    try {
                        ChunkRecord rec = RecordFormat.PLAIN.decode(ByteBuffer.wrap(in.read(offset, length)));
                        out.append(sealed.encode(rec));
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                counts[0] += r.records();
                counts[1] += r.damagedBytes();
                out.force();
            } catch (java.io.UncheckedIOException e) {
                throw e.getCause();
            }
            n++;
        }
        FileSync.syncDirectory(to);
        return n;
    }

    private static int sealRecipes(Path unitDir, BlobSeal seal) throws IOException {
        Path from = unitDir.resolve("recipes");
        Path to = OwnerOnly.createDirectories(unitDir.resolve("recipes" + SEALED));
        int n = 0;
        for (Path p : list(from)) {
            String f = p.getFileName().toString();
            if (f.endsWith(".tmp")) {
                continue;
            }
            FileSync.writeAndSync(to.resolve(f), seal.seal(Files.readAllBytes(p), "recipe " + f));
            n++;
        }
        FileSync.syncDirectory(to);
        return n;
    }

    /** After the commit: each part's sealed directory takes the plaintext one's place, then the plaintext goes. */
    private static void finish(Path unitDir) throws IOException {
        for (String part : PARTS) {
            Path live = unitDir.resolve(part);
            Path sealed = unitDir.resolve(part + SEALED);
            Path plain = unitDir.resolve(part + PLAIN);
            if (Files.exists(sealed)) {
                if (Files.exists(live)) {
                    Files.move(live, plain, StandardCopyOption.ATOMIC_MOVE);
                    FileSync.syncDirectory(unitDir);
                }
                Files.move(sealed, live, StandardCopyOption.ATOMIC_MOVE);
                FileSync.syncDirectory(unitDir);
            }
            deleteTree(plain);
        }
        FileSync.syncDirectory(unitDir);
    }

    private static List<Path> list(Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            ds.forEach(out::add);
        }
        out.sort(Comparator.naturalOrder());
        return out;
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
