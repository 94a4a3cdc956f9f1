package io.gpdedup.store.recipe;

import io.gpdedup.protocol.model.RetentionLock;
import io.gpdedup.store.container.FileSync;
import io.gpdedup.store.container.OwnerOnly;
import io.gpdedup.store.crypt.BlobSeal;
import io.gpdedup.store.crypt.SealException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Recipe files in one directory (docs/format.md section 3): staged as fsynced temp files, renamed
 * into place and the directory fsynced once per batch. In an encrypted unit each file is sealed
 * whole (section 9.3), bound to its file name; what is inside is the catalog's business.
 */
public final class RecipeDirectory implements RecipeStore {
    private final Path dir;
    private final BlobSeal seal;
    private final AtomicLong tempSeq = new AtomicLong();

    private RecipeDirectory(Path dir, BlobSeal seal) {
        this.dir = dir;
        this.seal = seal;
    }

    /** Opens (creating) the directory and deletes leftover temp files. */
    public static RecipeDirectory open(Path dir) throws IOException {
        return open(dir, null);
    }

    /** As {@link #open(Path)}, for recipe files sealed under {@code seal} (null: plaintext). */
    public static RecipeDirectory open(Path dir, BlobSeal seal) throws IOException {
        OwnerOnly.createDirectories(dir);
        boolean removed = false;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.tmp")) {
            for (Path p : ds) {
                Files.deleteIfExists(p);
                removed = true;
            }
        }
        if (removed) {
            FileSync.syncDirectory(dir);
        }
        return new RecipeDirectory(dir, seal);
    }

    @Override
    public List<RecipeCatalog.Entry> load(List<String> problems) throws IOException {
        List<RecipeCatalog.Entry> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*" + ObjectName.SUFFIX)) {
            for (Path p : ds) {
                String f = p.getFileName().toString();
                byte[] bytes;
                try {
                    bytes = opened(f, Files.readAllBytes(p));
                } catch (SealException e) {
                    problems.add(e.getMessage());
                    // Listed damaged, as a recipe that does not decode is: the bytes below decode to nothing.
                    out.add(RecipeCatalog.entryOf(f, new byte[0], new ArrayList<>()));
                    continue;
                }
                out.add(RecipeCatalog.entryOf(f, bytes, problems));
            }
        }
        return out;
    }

    @Override
    public Optional<byte[]> read(String fileName) throws IOException {
        try {
            return Optional.of(opened(fileName, Files.readAllBytes(dir.resolve(fileName))));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    @Override
    public Staged stage(String name, long committedAtMillis, long length, byte[] bytes, RetentionLock lock) throws IOException {
        Path temp = dir.resolve(ObjectName.fileName(name) + "." + tempSeq.incrementAndGet() + ".tmp");
        try {
            FileSync.writeAndSync(temp, seal == null ? bytes : seal.seal(bytes, what(ObjectName.fileName(name))));
        } catch (IOException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        return new Staged(name, temp.getFileName().toString(), length, committedAtMillis);
    }

    private byte[] opened(String fileName, byte[] bytes) throws IOException {
        return seal == null ? bytes : seal.open(bytes, what(fileName));
    }

    private static String what(String fileName) {
        return "recipe " + fileName;
    }

    @Override
    public void publish(List<Staged> staged) throws IOException {
        for (Staged s : staged) {
            Files.move(dir.resolve(s.location()), dir.resolve(ObjectName.fileName(s.name())),
                    StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        FileSync.syncDirectory(dir);
    }

    @Override
    public void discard(Staged s) {
        try {
            Files.deleteIfExists(dir.resolve(s.location()));
        } catch (IOException e) {
            // Left for the next open to remove: temp files are never read.
        }
    }

    @Override
    public List<String> delete(List<String> fileNames, boolean bypassGovernance) throws IOException {
        for (String f : fileNames) {
            Files.deleteIfExists(dir.resolve(f));
        }
        FileSync.syncDirectory(dir);
        return List.of();
    }
}
