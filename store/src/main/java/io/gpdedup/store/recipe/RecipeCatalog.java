package io.gpdedup.store.recipe;

import io.gpdedup.store.chunk.Recipe;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A unit's committed objects: the recipe files of a {@link RecipeStore}, and a sorted in-memory
 * list of them for listing. Publishing and deleting hold one lock so that the list always matches
 * the store once it is durable; reads need no lock.
 */
public final class RecipeCatalog {
    /** One committed object. {@code damaged} when its recipe file could not be decoded at load. */
    public record Entry(String name, String fileName, long length, long committedAtMillis, boolean damaged) {
    }

    private final RecipeStore store;
    private final ConcurrentSkipListMap<String, Entry> entries = new ConcurrentSkipListMap<>();
    private final ReentrantLock publishLock = new ReentrantLock();
    private final List<String> loadProblems = new ArrayList<>();

    private RecipeCatalog(RecipeStore store) {
        this.store = store;
    }

    /** Opens the recipe directory {@code dir} (creating it). */
    public static RecipeCatalog open(Path dir) throws IOException {
        return open(RecipeDirectory.open(dir));
    }

    /** Loads every recipe's entry from {@code store}. */
    public static RecipeCatalog open(RecipeStore store) throws IOException {
        RecipeCatalog c = new RecipeCatalog(store);
        for (Entry e : store.load(c.loadProblems)) {
            c.entries.put(e.name(), e);
        }
        return c;
    }

    /** The entry of a recipe file's bytes; a damaged entry (and a problem) when they do not decode. */
    public static Entry entryOf(String fileName, byte[] bytes, List<String> problems) {
        try {
            RecipeFile.Contents rc = RecipeFile.decode(bytes);
            if (!ObjectName.fileName(rc.name()).equals(fileName)) {
                throw new CorruptRecipeException("the name inside does not match the file name");
            }
            return new Entry(rc.name(), fileName, rc.recipe().totalLength(), rc.committedAtMillis(), false);
        } catch (CorruptRecipeException e) {
            String name = ObjectName.nameOf(fileName);
            problems.add("recipe " + fileName + ": " + e.getMessage());
            return new Entry(name != null ? name : fileName, fileName, 0, 0, true);
        }
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
     * Reads and decodes an entry's recipe file; empty if it was deleted meanwhile.
     */
    public Optional<RecipeFile.Contents> read(Entry e) throws IOException, CorruptRecipeException {
        Optional<byte[]> data = store.read(e.fileName());
        if (data.isEmpty()) {
            return Optional.empty();
        }
        RecipeFile.Contents rc = RecipeFile.decode(data.get());
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

    /** Writes a recipe ready to publish (callable from any thread, in parallel). */
    public RecipeStore.Staged stage(String name, long committedAtMillis, Recipe recipe) throws IOException {
        return store.stage(name, committedAtMillis, recipe.totalLength(), RecipeFile.encode(name, committedAtMillis, recipe));
    }

    /** Publishes staged recipes durably, then makes them visible in the list. */
    public void publish(List<RecipeStore.Staged> staged) throws IOException {
        publishLock.lock();
        try {
            store.publish(staged);
            for (RecipeStore.Staged s : staged) {
                entries.put(s.name(), new Entry(s.name(), ObjectName.fileName(s.name()), s.length(), s.committedAtMillis(), false));
            }
        } finally {
            publishLock.unlock();
        }
        store.changed(entries.values(), false);
    }

    /** Drops a staged recipe that will not be published. */
    public void discard(RecipeStore.Staged s) {
        store.discard(s);
    }

    /** Deletes one object by exact name; false if there was none. */
    public boolean delete(String name) throws IOException {
        publishLock.lock();
        try {
            Entry e = entries.get(name);
            if (e == null) {
                return false;
            }
            store.delete(List.of(e.fileName()));
            entries.remove(name);
        } finally {
            publishLock.unlock();
        }
        store.changed(entries.values(), false);
        return true;
    }

    /** Durably removes every object whose name starts with {@code prefix}; returns how many. */
    public int deletePrefix(String prefix) throws IOException {
        publishLock.lock();
        List<Entry> doomed;
        try {
            doomed = list(prefix);
            if (doomed.isEmpty()) {
                return 0;
            }
            List<String> files = new ArrayList<>();
            for (Entry e : doomed) {
                files.add(e.fileName());
            }
            store.delete(files);
            for (Entry e : doomed) {
                entries.remove(e.name());
            }
        } finally {
            publishLock.unlock();
        }
        store.changed(entries.values(), false);
        return doomed.size();
    }

    /** Every entry, sorted by name. */
    public List<Entry> all() {
        return new ArrayList<>(entries.values());
    }

    /** The unit is closing: a store that keeps a checkpoint of the listing saves it now. */
    public void close() {
        store.changed(entries.values(), true);
    }
}
