package io.gpdedup.store.engine;

import io.gpdedup.store.crypt.Kek;
import java.nio.file.Path;

/** Every scenario of {@link GarbageCollectionTest}, its units encrypted at rest. */
class EncryptedGarbageCollectionTest extends GarbageCollectionTest {
    private final Kek kek = Kek.generate();

    @Override
    DedupStoreEngine open(Path dataDir, EngineSettings settings) {
        return DedupStoreEngine.open(dataDir, settings, kek);
    }
}
