package io.gpdedup.store.engine;

import io.gpdedup.store.container.DiskSpace;
import io.gpdedup.store.container.OwnerOnly;
import io.gpdedup.store.crypt.Kek;
import io.gpdedup.store.crypt.UnitEncryption;
import io.gpdedup.store.recipe.RecipeDirectory;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;

/** Units as directories under {@code <data dir>/units/} (docs/format.md): the embedded default. */
final class LocalBackend implements UnitBackend {
    private final Path unitsDir;
    private final EngineSettings settings;
    private final DiskSpace space;
    private final Kek kek;

    private LocalBackend(Path unitsDir, EngineSettings settings, DiskSpace space, Kek kek) {
        this.unitsDir = unitsDir;
        this.settings = settings;
        this.space = space;
        this.kek = kek;
    }

    static LocalBackend open(Path dataDir, EngineSettings settings) throws IOException {
        return open(dataDir, settings, null);
    }

    /** Units whose files are encrypted under data keys that {@code kek} wraps (null: no key, plaintext units only). */
    static LocalBackend open(Path dataDir, EngineSettings settings, Kek kek) throws IOException {
        Path units = OwnerOnly.createDirectories(dataDir.resolve("units"));
        return new LocalBackend(units, settings, DiskSpace.of(dataDir, settings.diskReserveBytes()), kek);
    }

    @Override
    public Set<String> existingUnits() throws IOException {
        Set<String> names = new TreeSet<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(unitsDir)) {
            for (Path p : ds) {
                String name = p.getFileName().toString();
                if (Files.isDirectory(p) && DedupStoreEngine.isUnitName(name)) {
                    names.add(name);
                }
            }
        }
        return names;
    }

    @Override
    public UnitParts openUnit(String name) throws IOException {
        Path dir = unitsDir.resolve(name);
        UnitEncryption encryption = UnitEncryption.open(dir, name, kek);
        LocalContainers containers = LocalContainers.open(name, dir, settings, space, encryption);
        try {
            return new UnitParts(containers, RecipeDirectory.open(dir.resolve("recipes"), encryption.blobs()), () -> { });
        } catch (IOException | RuntimeException e) {
            containers.close();
            throw e;
        }
    }

    @Override
    public String describe() {
        return unitsDir.getParent().toString();
    }

    @Override
    public void close() {
        // Nothing held beyond the units, which the engine closes.
    }
}
