package io.gpdedup.store.engine;

import io.gpdedup.store.crypt.Kek;
import java.nio.file.Path;

/** Every scenario of {@link RecompressionTest}, its units encrypted at rest. */
class EncryptedRecompressionTest extends RecompressionTest {
    private final Kek kek = Kek.generate();

    @Override
    DedupStoreEngine open(Path dataDir, EngineSettings settings) {
        return DedupStoreEngine.open(dataDir, settings, kek);
    }
}
