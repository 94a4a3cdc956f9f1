package io.gpdedup.store.engine;

import io.gpdedup.store.recipe.RecipeStore;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;

/**
 * What keeps an engine's units durable: the local data directory ({@link LocalBackend}, the
 * default) or an S3-compatible bucket ({@code io.gpdedup.store.s3.S3Backend}).
 */
public interface UnitBackend extends Closeable {
    /** Opens a backend once the engine holds its data directory. */
    @FunctionalInterface
    interface Factory {
        UnitBackend open(Path dataDir, EngineSettings settings) throws IOException;
    }

    /** What one unit is made of; {@code onClose} runs after the unit closed its containers. */
    record UnitParts(ContainerStore containers, RecipeStore recipes, Closeable onClose) implements Closeable {
        @Override
        public void close() throws IOException {
            try {
                containers.close();
            } finally {
                onClose.close();
            }
        }
    }

    /** Units opened with the engine: every unit on disk locally; none for a bucket, whose units are opened as the config names them. */
    Set<String> existingUnits() throws IOException;

    /** Opens (creating) a unit's parts. */
    UnitParts openUnit(String name) throws IOException;

    /** For logs: where the units live. */
    String describe();
}
