package io.gpdedup.store.cli;

import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.store.config.ConfigLoader;
import io.gpdedup.store.config.StoreConfig;
import io.gpdedup.store.crypt.KeyException;
import io.gpdedup.store.engine.BackupLease;
import io.gpdedup.store.engine.CommitPolicy;
import io.gpdedup.store.engine.DedupStoreEngine;
import io.gpdedup.store.engine.EngineSettings;
import io.gpdedup.store.engine.StorageUnit;
import io.gpdedup.store.engine.StoreException;
import io.gpdedup.store.net.StoreService;
import io.gpdedup.store.s3.S3Backend;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code copy-unit}: copies a storage unit from a local data directory into the storage the config
 * names (a bucket), object by object: each object's chunks the target lacks are read from the
 * source, sent as stored (compressed, checked as any upload) and its recipe committed. Both stores
 * are stopped (the source's data directory is locked while this runs; the target unit's lease is
 * taken). Run it again to resume an interrupted copy: an object already there with the same content
 * ({@link Recipe#sameStream}) is skipped.
 */
@Command(name = "copy-unit", mixinStandardHelpOptions = true,
        description = {"Copies a storage unit from a local data directory to the storage of --config (a bucket, docs/s3.md).",
            "Stop the store that serves the source directory first. Resumable: objects already copied are skipped."})
final class CopyUnitCommand implements Callable<Integer> {
    @Option(names = "--from", required = true, paramLabel = "DIR", description = "the local data directory holding the unit")
    Path from;

    @Option(names = "--unit", required = true, paramLabel = "NAME", description = "the storage unit to copy")
    String unit;

    @Option(names = "--config", required = true, paramLabel = "FILE", description = "the target store's config (storage: s3)")
    Path config;

    @Override
    public Integer call() {
        StoreConfig cfg;
        try {
            cfg = ConfigLoader.load(config);
        } catch (ConfigLoader.ConfigException e) {
            System.err.println("gpdedup-store: " + e.getMessage());
            return 2;
        }
        if (cfg.storage() == null) {
            System.err.println("gpdedup-store: " + config + " keeps its units on local disk: copy-unit copies into a bucket (storage: s3)");
            return 2;
        }
        if (from.toAbsolutePath().normalize().equals(cfg.dataDir().toAbsolutePath().normalize())) {
            System.err.println("gpdedup-store: --from is the target's own data directory; give the source store's");
            return 2;
        }
        // The source is read with the config's key too: an encrypted disk unit copies into an encrypted bucket unit.
        try (DedupStoreEngine source = cfg.encryption() != null ? DedupStoreEngine.open(from, EngineSettings.defaults(), cfg.encryption().load())
                : DedupStoreEngine.open(from, EngineSettings.defaults());
             DedupStoreEngine target = StoreService.openEngine(cfg)) {
            if (!source.unitNames().contains(unit)) {
                System.err.println("gpdedup-store: there is no storage unit " + unit + " in " + from);
                return 1;
            }
            copy(source.unit(unit), target.unit(unit));
            return 0;
        } catch (S3Backend.BucketUnavailableException | KeyException e) {
            System.err.println("gpdedup-store: " + e.getMessage());
            return 2;
        } catch (StoreException e) {
            System.err.println("gpdedup-store: " + e.getMessage());
            return 1;
        } catch (java.util.concurrent.CompletionException e) {
            System.err.println("gpdedup-store: " + (e.getCause() == null ? e.getMessage() : e.getCause().getMessage()));
            return 1;
        }
    }

    private static void copy(StorageUnit source, StorageUnit target) {
        long objects = 0;
        long skipped = 0;
        long chunks = 0;
        long bytes = 0;
        for (ObjectInfo o : source.list("")) {
            Recipe recipe = source.recipe(o.name()).orElse(null);
            if (recipe == null) {
                continue; // deleted meanwhile
            }
            Recipe there = target.recipe(o.name()).orElse(null);
            if (there != null && there.sameStream(recipe)) {
                skipped++;
                continue;
            }
            try (BackupLease lease = target.beginBackup()) {
                Set<Fingerprint> distinct = new LinkedHashSet<>();
                for (ChunkRef r : recipe.chunks()) {
                    distinct.add(r.fingerprint());
                }
                List<Fingerprint> fps = new ArrayList<>(distinct);
                boolean[] missing = lease.missing(fps.toArray(Fingerprint[]::new));
                for (int i = 0; i < missing.length; i++) {
                    if (missing[i]) {
                        StoredChunk c = source.read(fps.get(i));
                        lease.put(fps.get(i), c.codec(), c.rawLength(), c.payload());
                        chunks++;
                        bytes += c.payload().length;
                    }
                }
                lease.commit(o.name(), recipe, CommitPolicy.keeping(o.lock())).join();
            }
            objects++;
        }
        System.out.printf("copied %d objects (%d already there), %d chunks, %d bytes as stored%n", objects, skipped, chunks, bytes);
    }
}
