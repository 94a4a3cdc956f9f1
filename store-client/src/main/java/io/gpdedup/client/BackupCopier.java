package io.gpdedup.client;

import io.gpdedup.client.BackupSession;
import io.gpdedup.client.StoreClient;
import io.gpdedup.client.StoreClientException;
import io.gpdedup.protocol.concurrent.Futures;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.protocol.wire.ChunkUpload;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Copies the objects under one name prefix to a second store, as the appliances' replication
 * does: for each object the remote is asked which chunks it lacks, only those are read from the
 * source and sent, as stored (compressed; the remote verifies them as it verifies any upload),
 * and the recipe is committed. An object the remote already holds with the same content
 * ({@link Recipe#sameStream}) is left as it is, so a copy interrupted halfway resumes where it
 * stopped; one it holds with other content stops the copy.
 */
public final class BackupCopier {
    /** Chunks read from the source and sent to the remote per round. */
    private static final int BATCH = 256;

    /** Where the objects come from: a storage unit inside a store, or a client of one. */
    public interface Source {
        List<ObjectInfo> list(String prefix);

        Optional<Recipe> recipe(String objectName);

        /** The stored chunks, in the order asked; fails if one is absent or unreadable. */
        List<StoredChunk> chunks(Fingerprint[] fingerprints);
    }

    /** Told after each batch of chunks the remote has received. */
    @FunctionalInterface
    public interface Progress {
        void sent(long chunks, long bytes);
    }

    /**
     * @param objects objects under the prefix; {@code unchanged} of them the remote held already
     * @param chunks distinct chunks of the objects copied; {@code chunksSent} of them the remote lacked
     */
    public record Result(int objects, int unchanged, long chunks, long chunksSent, long bytesSent) {
    }

    private final Source source;
    private final StoreClient remote;

    public BackupCopier(Source source, StoreClient remote) {
        this.source = source;
        this.remote = remote;
    }

    public static Source source(StoreClient client) {
        return new Source() {
            @Override
            public List<ObjectInfo> list(String prefix) {
                return client.list(prefix);
            }

            @Override
            public Optional<Recipe> recipe(String objectName) {
                return client.recipe(objectName);
            }

            @Override
            public List<StoredChunk> chunks(Fingerprint[] fingerprints) {
                return await(client.chunks(fingerprints));
            }
        };
    }

    /**
     * Copies every object named {@code sourcePrefix + rest} to {@code targetPrefix + rest}.
     *
     * @throws ReplicationException when there is nothing to copy, an object vanished, or the remote holds another object under a name
     * @throws StoreClientException when a store fails or cannot be reached (worth another try)
     */
    public Result copy(String sourcePrefix, String targetPrefix, Progress progress) {
        List<ObjectInfo> objects = source.list(sourcePrefix);
        if (objects.isEmpty()) {
            throw new ReplicationException("no objects under '" + sourcePrefix + "' to replicate", true);
        }
        int unchanged = 0;
        long chunks = 0;
        long sent = 0;
        long bytes = 0;
        for (ObjectInfo o : objects) {
            Recipe recipe = source.recipe(o.name()).orElseThrow(() -> new ReplicationException("object " + o.name()
                    + " vanished while replicating", true));
            String target = targetPrefix + o.name().substring(sourcePrefix.length());
            Optional<Recipe> there = remote.recipe(target);
            if (there.isPresent()) {
                if (there.get().sameStream(recipe)) {
                    unchanged++;
                    continue;
                }
                throw new ReplicationException("the remote store already holds a different object " + target + " (unit '"
                        + remote.settings().unit() + "'): remove that backup from the remote first", true);
            }
            try (BackupSession session = remote.beginBackup()) {
                Fingerprint[] distinct = distinct(recipe);
                boolean[] missing = await(session.missing(distinct));
                List<Fingerprint> wanted = new ArrayList<>();
                for (int i = 0; i < distinct.length; i++) {
                    if (missing[i]) {
                        wanted.add(distinct[i]);
                    }
                }
                for (int from = 0; from < wanted.size(); from += BATCH) {
                    Fingerprint[] batch = wanted.subList(from, Math.min(wanted.size(), from + BATCH)).toArray(Fingerprint[]::new);
                    List<StoredChunk> stored = source.chunks(batch);
                    List<ChunkUpload> uploads = new ArrayList<>(batch.length);
                    long batchBytes = 0;
                    for (int i = 0; i < batch.length; i++) {
                        StoredChunk c = stored.get(i);
                        uploads.add(new ChunkUpload(batch[i], c.codec(), c.rawLength(), c.payload()));
                        batchBytes += c.payload().length;
                    }
                    await(session.put(uploads));
                    bytes += batchBytes;
                    progress.sent(batch.length, batchBytes);
                }
                await(session.commit(target, recipe));
                chunks += distinct.length;
                sent += wanted.size();
            }
        }
        return new Result(objects.size(), unchanged, chunks, sent, bytes);
    }

    private static Fingerprint[] distinct(Recipe recipe) {
        Set<Fingerprint> seen = new LinkedHashSet<>();
        for (ChunkRef c : recipe.chunks()) {
            seen.add(c.fingerprint());
        }
        return seen.toArray(Fingerprint[]::new);
    }

    private static <T> T await(CompletableFuture<T> f) {
        return Futures.await(f, StoreClient::rethrowable, e -> new StoreClientException("interrupted while replicating", e));
    }
}
