package io.gpdedup.store.recipe;

import io.gpdedup.store.chunk.RetentionLock;
import io.gpdedup.store.container.FileSync;
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
 * into place and the directory fsynced once per batch.
 */
public final class RecipeDirectory implements RecipeStore {
    private final Path dir;
    private final AtomicLong tempSeq = new AtomicLong();

    private RecipeDirectory(Path dir) {
        this.dir = dir;
    }

    /** Opens (creating) the directory and deletes leftover temp files. */
    public static RecipeDirectory open(Path dir) throws IOException {
        Files.createDirectories(dir);
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
        return new RecipeDirectory(dir);
    }

    @Override
    public List<RecipeCatalog.Entry> load(List<String> problems) throws IOException {
        List<RecipeCatalog.Entry> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*" + ObjectName.SUFFIX)) {
            for (Path p : ds) {
                String f = p.getFileName().toString();
                out.add(RecipeCatalog.entryOf(f, Files.readAllBytes(p), problems));
            }
        }
        return out;
    }

    @Override
    public Optional<byte[]> read(String fileName) throws IOException {
        try {
            return Optional.of(Files.readAllBytes(dir.resolve(fileName)));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    @Override
    public Staged stage(String name, long committedAtMillis, long length, byte[] bytes, RetentionLock lock) throws IOException {
        Path temp = dir.resolve(ObjectName.fileName(name) + "." + tempSeq.incrementAndGet() + ".tmp");
        try {
            FileSync.writeAndSync(temp, bytes);
        } catch (IOException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        return new Staged(name, temp.getFileName().toString(), length, committedAtMillis);
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
