package io.gpdedup.dedup;

import io.gpdedup.client.BackupSession;
import io.gpdedup.client.StoreClient;
import io.gpdedup.client.StoreServerException;
import io.gpdedup.dedup.chunk.ChunkerParams;
import io.gpdedup.plugin.api.PluginException;
import io.gpdedup.protocol.codec.ChunkCodec;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.concurrent.Futures;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.protocol.wire.ChunkUpload;
import io.gpdedup.protocol.wire.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Chunk sizes are fixed per storage unit once data is written: a different chunker would cut the
 * same table at other places and nothing would dedup again. The first backup records its sizes in
 * the unit as object {@value #OBJECT}; later backups with other sizes are refused.
 */
final class ChunkingFreeze {
    static final String OBJECT = ".gpdedup/chunking";
    private final Set<String> checked = ConcurrentHashMap.newKeySet();

    void check(StoreClient client, ChunkerParams params) {
        String key = client.settings().addresses() + "/" + client.settings().unit() + "/" + params;
        if (checked.contains(key)) {
            return;
        }
        Optional<ChunkerParams> frozen = read(client);
        if (frozen.isEmpty() && !write(client, params)) {
            frozen = readWrittenByAnother(client);
        }
        if (frozen.isPresent() && !frozen.get().equals(params)) {
            ChunkerParams f = frozen.get();
            throw new PluginException("storage unit '" + client.settings().unit() + "' was written with chunk sizes "
                    + f.minSize() + "/" + f.avgSize() + "/" + f.maxSize() + " (min/avg/max); the config asks for "
                    + params.minSize() + "/" + params.avgSize() + "/" + params.maxSize()
                    + ": remove chunk_min_size, chunk_avg_size and chunk_max_size or set them to the unit's values");
        }
        checked.add(key);
    }

    private static Optional<ChunkerParams> read(StoreClient client) {
        Optional<Recipe> recipe = client.recipe(OBJECT);
        if (recipe.isEmpty()) {
            return Optional.empty();
        }
        try {
            List<ChunkRef> refs = recipe.get().chunks();
            Fingerprint[] fps = refs.stream().map(ChunkRef::fingerprint).toArray(Fingerprint[]::new);
            StringBuilder text = new StringBuilder();
            List<StoredChunk> chunks = Futures.await(client.chunks(fps), failed -> cannotRead(client, failed),
                    e -> new PluginException("interrupted while reading the unit's chunk sizes"));
            for (StoredChunk c : chunks) {
                text.append(new String(ChunkCodec.decode(c.codec(), c.rawLength(), c.payload()), StandardCharsets.US_ASCII));
            }
            String[] w = text.toString().trim().split(" ");
            return Optional.of(new ChunkerParams(Integer.parseInt(w[0]), Integer.parseInt(w[1]), Integer.parseInt(w[2])));
        } catch (PluginException e) {
            throw e;
        } catch (RuntimeException e) {
            throw cannotRead(client, e);
        }
    }

    private static PluginException cannotRead(StoreClient client, Throwable why) {
        return new PluginException("cannot read the chunk sizes recorded in storage unit '" + client.settings().unit() + "': " + why.getMessage());
    }

    /**
     * The sizes another process recorded while this one tried to: its commit may still be in
     * flight, so a few reads a little apart.
     */
    private static Optional<ChunkerParams> readWrittenByAnother(StoreClient client) {
        long pause = 50;
        for (int attempt = 0; attempt < 8; attempt++) {
            Optional<ChunkerParams> frozen = read(client);
            if (frozen.isPresent()) {
                return frozen;
            }
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PluginException("interrupted while reading the unit's chunk sizes");
            }
            pause *= 2;
        }
        throw new PluginException("storage unit '" + client.settings().unit() + "' refused to record its chunk sizes as another "
                + "backup was recording them, and shows none since");
    }

    /** Records the sizes; false when the unit already holds them or another backup is recording them. */
    private static boolean write(StoreClient client, ChunkerParams p) {
        byte[] text = (p.minSize() + " " + p.avgSize() + " " + p.maxSize() + "\n").getBytes(StandardCharsets.US_ASCII);
        Fingerprint fp = Fingerprint.compute(text, 0, text.length);
        try (BackupSession s = client.beginBackup()) {
            boolean[] missing = recording(client, s.missing(new Fingerprint[] {fp}));
            if (missing[0]) {
                recording(client, s.put(List.of(new ChunkUpload(fp, Codec.NONE, text.length, text))));
            }
            recording(client, s.commit(OBJECT, new Recipe(List.of(new ChunkRef(fp, text.length)), text.length, Fingerprint.newDigest().digest(text))));
            return true;
        } catch (StoreServerException refused) {
            if (alreadyRecorded(refused)) {
                return false;
            }
            throw refused;
        }
    }

    /** The result of one step of recording the sizes: a refusal because they are recorded already comes out as it is. */
    private static <T> T recording(StoreClient client, CompletableFuture<T> step) {
        return Futures.await(step, failed -> failed instanceof StoreServerException refused && alreadyRecorded(refused) ? refused
                : new PluginException("cannot record the chunk sizes in storage unit '" + client.settings().unit() + "': " + failed.getMessage()),
                e -> new PluginException("interrupted while recording the unit's chunk sizes"));
    }

    private static boolean alreadyRecorded(StoreServerException refused) {
        return refused.code() == ErrorCode.EXISTS || refused.code() == ErrorCode.LOCKED;
    }
}
