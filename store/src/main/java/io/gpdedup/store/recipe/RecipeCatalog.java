package io.gpdedup.store.recipe;

import io.gpdedup.store.container.FileSync;
import io.gpdedup.store.engine.Recipe;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A unit's committed objects: the recipe files in one directory, and a sorted in-memory list of
 * them for listing. Publishing and deleting hold one lock so that the list always matches the
 * directory after its fsync; reads need no lock.
 */
public final class RecipeCatalog {
    /** One committed object. {@code damaged} when its recipe file could not be decoded at load. */
    public record Entry(String name, String fileName, long length, long committedAtMillis, boolean damaged) {
    }

    /** A recipe written to a temp file and fsynced, waiting to be renamed into place. */
    public record Staged(String name, Path temp, long length, long committedAtMillis) {
    }

    private final Path dir;
    private final ConcurrentSkipListMap<String, Entry> entries = new ConcurrentSkipListMap<>();
    private final ReentrantLock publishLock = new ReentrantLock();
    private final AtomicLong tempSeq = new AtomicLong();
    private final List<String> loadProblems = new ArrayList<>();

    private RecipeCatalog(Path dir) {
        this.dir = dir;
    }

    /** Opens (creating) the directory, deletes leftover temp files and loads every recipe's header. */
    public static RecipeCatalog open(Path dir) throws IOException {
        Files.createDirectories(dir);
        RecipeCatalog c = new RecipeCatalog(dir);
        boolean removed = false;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                String f = p.getFileName().toString();
                if (f.endsWith(".tmp")) {
                    Files.deleteIfExists(p);
                    removed = true;
                } else if (f.endsWith(ObjectName.SUFFIX)) {
                    c.load(p, f);
                }
            }
        }
        if (removed) {
            FileSync.syncDirectory(dir);
        }
        return c;
    }

    private void load(Path p, String fileName) throws IOException {
        try {
            RecipeFile.Contents rc = RecipeFile.decode(Files.readAllBytes(p));
            if (!ObjectName.fileName(rc.name()).equals(fileName)) {
                throw new CorruptRecipeException("the name inside does not match the file name");
            }
            entries.put(rc.name(), new Entry(rc.name(), fileName, rc.recipe().totalLength(), rc.committedAtMillis(), false));
        } catch (CorruptRecipeException e) {
            String name = ObjectName.nameOf(fileName);
            String shown = name != null ? name : fileName;
            loadProblems.add("recipe " + fileName + ": " + e.getMessage());
            entries.put(shown, new Entry(shown, fileName, 0, 0, true));
        }
    }

    public Path directory() {
        return dir;
    }

    /** Problems found while loading (damaged recipe files). */
    public List<String> loadProblems() {
        return List.copyOf(loadProblems);
    }

    public Optional<Entry> entry(String name) {
        return Optional.ofNullable(entries.get(name));
    }

    /** Entries whose names start with {@code prefix}, sorted by name. */
    public List<Entry> list(String prefix) {
        List<Entry> out = new ArrayList<>();
        for (Map.Entry<String, Entry> e : entries.tailMap(prefix, true).entrySet()) {
            if (!e.getKey().startsWith(prefix)) {
                break;
            }
            out.add(e.getValue());
        }
        return out;
    }

    public int size() {
        return entries.size();
    }

    public long logicalBytes() {
        long sum = 0;
        for (Entry e : entries.values()) {
            sum += e.length();
        }
        return sum;
    }

    /**
     * Reads and decodes an entry's recipe file; empty if it was deleted or replaced meanwhile by a
     * file for a different name (cannot happen: names map to files one to one).
     */
    public Optional<RecipeFile.Contents> read(Entry e) throws IOException, CorruptRecipeException {
        byte[] data;
        try {
            data = Files.readAllBytes(dir.resolve(e.fileName()));
        } catch (NoSuchFileException ex) {
            return Optional.empty();
        }
        RecipeFile.Contents rc = RecipeFile.decode(data);
        if (!rc.name().equals(e.name())) {
            throw new CorruptRecipeException("recipe file " + e.fileName() + " holds the name '" + rc.name() + "'");
        }
        return Optional.of(rc);
    }

    /** The recipe of a committed object, empty if there is none. */
    public Optional<Recipe> recipe(String name) throws IOException, CorruptRecipeException {
        Entry e = entries.get(name);
        if (e == null) {
            return Optional.empty();
        }
        if (e.damaged()) {
            throw new CorruptRecipeException("the recipe of '" + name + "' is damaged");
        }
        return read(e).map(RecipeFile.Contents::recipe);
    }

    /** Writes a recipe to a fresh temp file and fsyncs it (callable from any thread, in parallel). */
    public Staged stage(String name, long committedAtMillis, Recipe recipe) throws IOException {
        byte[] bytes = RecipeFile.encode(name, committedAtMillis, recipe);
        Path temp = dir.resolve(ObjectName.fileName(name) + "." + tempSeq.incrementAndGet() + ".tmp");
        try {
            FileSync.writeAndSync(temp, bytes);
        } catch (IOException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        return new Staged(name, temp, recipe.totalLength(), committedAtMillis);
    }

    /** Renames staged recipes into place, fsyncs the directory once, then makes them visible. */
    public void publish(List<Staged> staged) throws IOException {
        publishLock.lock();
        try {
            for (Staged s : staged) {
                Files.move(s.temp(), dir.resolve(ObjectName.fileName(s.name())),
                        StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            }
            FileSync.syncDirectory(dir);
            for (Staged s : staged) {
                entries.put(s.name(), new Entry(s.name(), ObjectName.fileName(s.name()), s.length(), s.committedAtMillis(), false));
            }
        } finally {
            publishLock.unlock();
        }
    }

    /** Deletes a staged recipe that will not be published. */
    public void discard(Staged s) {
        try {
            Files.deleteIfExists(s.temp());
        } catch (IOException e) {
            // Left for the next open to remove: temp files are never read.
        }
    }

    /** Durably removes every object whose name starts with {@code prefix}; returns how many. */
    /** Deletes one object by exact name; false if there was none. */
    public boolean delete(String name) throws IOException {
        publishLock.lock();
        try {
            Entry e = entries.get(name);
            if (e == null) {
                return false;
            }
            Files.deleteIfExists(dir.resolve(e.fileName()));
            FileSync.syncDirectory(dir);
            entries.remove(name);
            return true;
        } finally {
            publishLock.unlock();
        }
    }

    public int deletePrefix(String prefix) throws IOException {
        publishLock.lock();
        try {
            List<Entry> doomed = list(prefix);
            if (doomed.isEmpty()) {
                return 0;
            }
            for (Entry e : doomed) {
                Files.deleteIfExists(dir.resolve(e.fileName()));
            }
            FileSync.syncDirectory(dir);
            for (Entry e : doomed) {
                entries.remove(e.name());
            }
            return doomed.size();
        } finally {
            publishLock.unlock();
        }
    }

    /** Every entry, sorted by name. */
    public List<Entry> all() {
        return new ArrayList<>(entries.values());
    }
}
