package io.gpdedup.store.engine;

import io.gpdedup.store.s3.S3Backend;
import io.gpdedup.store.s3.S3Settings;
import io.gpdedup.store.s3.TestBuckets;
import java.nio.file.Path;

/**
 * Opens engines for a test on either backend: local disk under {@code dir}, or a fresh bucket of
 * the test JVM's S3 server (S3Proxy) with its cache under {@code dir}. Reopening on the same
 * object reopens the same data (same data directory, so the same store takes its leases back).
 */
public final class TestEngines {
    /** The backends engine tests run against. */
    public enum Backend { LOCAL, S3 }

    private final Backend backend;
    private final Path dir;
    private S3Settings s3;

    public TestEngines(Backend backend, Path dir) {
        this.backend = backend;
        this.dir = dir;
    }

    public Backend backend() {
        return backend;
    }

    /** The bucket settings (S3 only), created on first use. */
    public S3Settings s3() {
        if (s3 == null) {
            s3 = TestBuckets.fresh("engine", dir.resolve("cache"));
        }
        return s3;
    }

    public DedupStoreEngine open(EngineSettings settings) {
        return open(dir.resolve("data"), settings);
    }

    /** An engine on another data directory: another store, for the S3 backend (its own leases and cache). */
    public DedupStoreEngine open(Path dataDir, EngineSettings settings) {
        if (backend == Backend.LOCAL) {
            return DedupStoreEngine.open(dataDir, settings);
        }
        S3Settings s = s3().withCacheDir(dataDir.resolveSibling(dataDir.getFileName() + "-cache"));
        return DedupStoreEngine.open(dataDir, settings, S3Backend.factory(s));
    }
}
