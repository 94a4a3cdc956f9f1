package io.gpdedup.store.recipe;

import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.RetentionLock;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A unit's committed objects: the recipe files of a {@link RecipeStore}, and a sorted in-memory
 * list of them for listing. Publishing and deleting hold one lock so that the list always matches
 * the store once it is durable; reads need no lock. The catalog is where an object's retention
 * lock and the unit's refusal to replace objects are enforced: a commit claims its name first
 * ({@link #claim}), a delete checks the locks of everything it would remove.
 */
public final class RecipeCatalog {
    /** One committed object. {@code damaged} when its recipe file could not be decoded at load. */
    public record Entry(String name, String fileName, long length, long committedAtMillis, boolean damaged, RetentionLock lock) {
        public Entry(String name, String fileName, long length, long committedAtMillis, boolean damaged) {
            this(name, fileName, length, committedAtMillis, damaged, RetentionLock.NONE);
        }
    }

    /** What a delete removed, and how many of those objects had governance locks a unit admin bypassed. */
    public record Deleted(int objects, int locksBypassed) {
    }

    /** A name claimed for one commit until {@link #close}; {@code unchanged} when the object is committed already, with the same content. */
    public final class Claim implements AutoCloseable {
        private final String name;
        private final boolean unchanged;

        private Claim(String name, boolean unchanged) {
            this.name = name;
            this.unchanged = unchanged;
        }

        /** The object already holds exactly this recipe: nothing to commit. */
        public boolean unchanged() {
            return unchanged;
        }

        @Override
        public void close() {
            claimed.remove(name);
        }
    }

    private final RecipeStore store;
    private final ConcurrentSkipListMap<String, Entry> entries = new ConcurrentSkipListMap<>();
    private final ReentrantLock publishLock = new ReentrantLock();
    private final List<String> loadProblems = new ArrayList<>();
    /** Names of commits in flight: a second commit of one of them would race the first to replace it. */
    private final Set<String> claimed = ConcurrentHashMap.newKeySet();

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
            return new Entry(rc.name(), fileName, rc.recipe().totalLength(), rc.committedAtMillis(), false, rc.lock());
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

    /**
     * Claims {@code name} for a commit of {@code recipe} made at about {@code nowMillis}. Refuses
     * (nothing changes) when another commit claims it, when a committed object of that name is
     * locked, or when one exists and the unit does not let objects be replaced; a committed object
     * with exactly this recipe makes the claim {@link Claim#unchanged}.
     */
    public Claim claim(String name, Recipe recipe, boolean replaceable, long nowMillis) throws IOException {
        if (!claimed.add(name)) {
            throw new ObjectExistsException("'" + name + "' is being committed by another backup stream");
        }
        try {
            Entry old = entries.get(name);
            if (old == null) {
                return new Claim(name, false);
            }
            if (!old.damaged() && sameRecipe(old, recipe)) {
                return new Claim(name, true);
            }
            if (old.lock().holdsAt(nowMillis)) {
                throw new ObjectsLockedException("'" + name + "' is " + old.lock().describe() + ": it cannot be replaced", 1, old.lock());
            }
            if (!replaceable) {
                throw new ObjectExistsException("'" + name + "' already exists (committed " + Instant.ofEpochMilli(old.committedAtMillis())
                        + "): this unit does not replace objects; delete the backup first, or set overwrite: allow for the unit");
            }
            return new Claim(name, false);
        } catch (IOException | RuntimeException e) {
            claimed.remove(name);
            throw e;
        }
    }

    private boolean sameRecipe(Entry old, Recipe recipe) throws IOException {
        if (old.length() != recipe.totalLength()) {
            return false;
        }
        try {
            Optional<RecipeFile.Contents> rc = read(old);
            return rc.isPresent() && rc.get().recipe().sameStream(recipe);
        } catch (CorruptRecipeException e) {
            return false;
        }
    }

    /** Writes a recipe ready to publish (callable from any thread, in parallel), locked as {@code lock} says. */
    public RecipeStore.Staged stage(String name, long committedAtMillis, Recipe recipe, RetentionLock lock) throws IOException {
        return store.stage(name, committedAtMillis, recipe.totalLength(), RecipeFile.encode(name, committedAtMillis, recipe, lock), lock)
                .withLock(lock);
    }

    /** Publishes staged recipes durably, then makes them visible in the list. */
    public void publish(List<RecipeStore.Staged> staged) throws IOException {
        publishLock.lock();
        try {
            store.publish(staged);
            for (RecipeStore.Staged s : staged) {
                entries.put(s.name(), new Entry(s.name(), ObjectName.fileName(s.name()), s.length(), s.committedAtMillis(), false, s.lock()));
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

    /**
     * Deletes one object by exact name; none deleted if there was none. Refuses a locked object
     * ({@link ObjectsLockedException}) unless its lock is governance and {@code bypassGovernance}.
     */
    public Deleted delete(String name, boolean bypassGovernance, long nowMillis) throws IOException {
        Deleted d;
        publishLock.lock();
        try {
            Entry e = entries.get(name);
            if (e == null) {
                return new Deleted(0, 0);
            }
            d = new Deleted(1, checkLocks(List.of(e), bypassGovernance, nowMillis, "'" + name + "'"));
            removeDeleted(List.of(e), store.delete(List.of(e.fileName()), bypassGovernance), "'" + name + "'");
        } finally {
            publishLock.unlock();
        }
        store.changed(entries.values(), false);
        return d;
    }

    /**
     * Durably removes every object whose name starts with {@code prefix}, or none of them when
     * any is locked (as {@link #delete}).
     */
    public Deleted deletePrefix(String prefix, boolean bypassGovernance, long nowMillis) throws IOException {
        publishLock.lock();
        List<Entry> doomed;
        int bypassed;
        try {
            doomed = list(prefix);
            if (doomed.isEmpty()) {
                return new Deleted(0, 0);
            }
            bypassed = checkLocks(doomed, bypassGovernance, nowMillis, "'" + prefix + "'");
            List<String> files = new ArrayList<>();
            for (Entry e : doomed) {
                files.add(e.fileName());
            }
            removeDeleted(doomed, store.delete(files, bypassGovernance), "'" + prefix + "'");
        } finally {
            publishLock.unlock();
        }
        store.changed(entries.values(), false);
        return new Deleted(doomed.size(), bypassed);
    }

    /** Drops from the list what the store deleted; refuses the delete for what its own retention kept. */
    private void removeDeleted(List<Entry> doomed, List<String> keptFiles, String what) {
        RetentionLock latest = RetentionLock.NONE;
        for (Entry e : doomed) {
            if (keptFiles.contains(e.fileName())) {
                latest = latest.max(e.lock());
            } else {
                entries.remove(e.name());
            }
        }
        if (!keptFiles.isEmpty()) {
            throw new ObjectsLockedException(what + ": " + keptFiles.size() + " of " + doomed.size() + " objects are held by the bucket's"
                    + " object lock (" + latest.describe() + "), which the store's credentials may not bypass; the others are deleted",
                    keptFiles.size(), latest);
        }
    }

    /** How many governance locks a delete of {@code doomed} bypasses; throws if any lock holds it back. */
    private static int checkLocks(List<Entry> doomed, boolean bypassGovernance, long nowMillis, String what) {
        int held = 0;
        int bypassed = 0;
        RetentionLock latest = RetentionLock.NONE;
        for (Entry e : doomed) {
            if (!e.lock().holdsAt(nowMillis)) {
                continue;
            }
            if (bypassGovernance && e.lock().mode() == RetentionLock.Mode.GOVERNANCE) {
                bypassed++;
                continue;
            }
            held++;
            latest = latest.max(e.lock());
        }
        if (held > 0) {
            throw new ObjectsLockedException(what + ": " + held + " of " + doomed.size() + " objects are " + latest.describe()
                    + "; nothing deleted", held, latest);
        }
        return bypassed;
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
