package io.gpdedup.store.retention;

import io.gpdedup.client.StoreClient;
import io.gpdedup.client.StoreClientException;
import io.gpdedup.client.StoreServerException;
import io.gpdedup.protocol.codec.CorruptChunkException;
import io.gpdedup.protocol.concurrent.Futures;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.protocol.naming.BackupTimestamp;
import io.gpdedup.protocol.naming.RemoteName;
import io.gpdedup.protocol.wire.ErrorCode;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads one backup's objects as a restore does and writes nothing: each recipe, then every chunk
 * it references, in batches of at most {@link #FETCH_BYTES} uncompressed bytes (one being checked,
 * the next on its way), each decoded and checked against its fingerprint and length, then the
 * recipe's chunk list SHA-256 and stream SHA-256 where it has them. What the store cannot read
 * (a record failing its checksum, a chunk it no longer has, a recipe it cannot read) makes the
 * object damaged; a lost connection ends the check.
 */
public final class BackupVerifier {
    /** Uncompressed bytes a batch asks for: two batches at most are held at once. */
    private static final long FETCH_BYTES = 32L << 20;

    /** One object's verdict: {@code problem} is null when it restores. */
    public record Checked(String directory, ObjectInfo object, long chunks, long bytes, String problem) {
        public boolean ok() {
            return problem == null;
        }
    }

    private final StoreClient client;
    private final long fetchBytes;
    private final MessageDigest sha256 = Fingerprint.newDigest();
    /** Bytes of chunks checked so far, for the progress line. */
    private final AtomicLong bytesDone = new AtomicLong();

    public BackupVerifier(StoreClient client) {
        this(client, FETCH_BYTES);
    }

    /** With batches of {@code fetchBytes} uncompressed bytes at most (a chunk larger than that is a batch alone). */
    BackupVerifier(StoreClient client, long fetchBytes) {
        this.client = client;
        this.fetchBytes = fetchBytes;
    }

    /**
     * The backups of {@code timestamp}: the one of {@code directory}, or with a null directory the
     * one of every directory of the unit (by directory). Empty when there is none.
     */
    public List<BackupSet> backups(BackupTimestamp timestamp, String directory) {
        String prefix = directory == null ? "" : directory.replaceAll("/+$", "") + "/" + RemoteName.backupPrefix(timestamp) + "/";
        return BackupSet.of(client.list(prefix)).stream().filter(b -> b.timestamp().equals(timestamp.value())).toList();
    }

    public long bytesDone() {
        return bytesDone.get();
    }

    public List<Checked> check(List<BackupSet> backups) {
        List<Checked> out = new ArrayList<>();
        for (BackupSet b : backups) {
            for (ObjectInfo o : b.objects()) {
                out.add(check(b.directory(), o));
            }
        }
        return out;
    }

    private Checked check(String directory, ObjectInfo o) {
        Recipe recipe;
        try {
            recipe = client.recipe(o.name()).orElse(null);
        } catch (StoreClientException e) {
            return new Checked(directory, o, 0, 0, "its recipe cannot be read: " + aboutTheObject(e));
        }
        if (recipe == null) {
            return new Checked(directory, o, 0, 0, "it was deleted while being checked");
        }
        if (recipe.totalLength() != o.length()) {
            return new Checked(directory, o, 0, 0, "its recipe rebuilds " + recipe.totalLength() + " bytes, the listing says " + o.length());
        }
        if (recipe.chunkListSha256() != null && !recipe.chunkListMatches()) {
            return new Checked(directory, o, 0, 0, "its chunk list does not match the SHA-256 recorded at backup");
        }
        Tally tally = new Tally();
        String problem = checkChunks(recipe, tally);
        return new Checked(directory, o, tally.chunks, tally.bytes, problem);
    }

    /** Chunks and bytes checked so far for one object. */
    private static final class Tally {
        long chunks;
        long bytes;
    }

    /** One batch asked for: chunks {@code [from, to)} of the recipe. */
    private record Batch(int from, int to, CompletableFuture<List<StoredChunk>> chunks) {
    }

    /** Null when every chunk and the stream are right, else the first thing wrong. */
    private String checkChunks(Recipe recipe, Tally tally) {
        List<ChunkRef> refs = recipe.chunks();
        MessageDigest stream = recipe.streamSha256() == null ? null : Fingerprint.newDigest();
        Batch next = refs.isEmpty() ? null : fetch(refs, 0);
        while (next != null) {
            Batch batch = next;
            next = batch.to() < refs.size() ? fetch(refs, batch.to()) : null;
            List<StoredChunk> stored;
            try {
                stored = await(batch.chunks());
            } catch (StoreClientException e) {
                String why = aboutTheObject(e);
                return whichChunk(refs, batch).orElse("chunks " + batch.from() + " to " + (batch.to() - 1) + " cannot be read: " + why);
            }
            if (stored.size() != batch.to() - batch.from()) {
                return "the store returned " + stored.size() + " chunks for " + (batch.to() - batch.from()) + " asked";
            }
            for (int i = batch.from(); i < batch.to(); i++) {
                ChunkRef ref = refs.get(i);
                byte[] raw;
                try {
                    raw = stored.get(i - batch.from()).rawBytes(ref, sha256);
                } catch (CorruptChunkException e) {
                    return "chunk " + i + " (" + ref.fingerprint() + ") is damaged: " + e.getMessage();
                }
                if (stream != null) {
                    stream.update(raw);
                }
                tally.chunks++;
                tally.bytes += raw.length;
                bytesDone.addAndGet(raw.length);
            }
        }
        if (stream != null && !MessageDigest.isEqual(stream.digest(), recipe.streamSha256())) {
            return "its chunks do not hash to the stream SHA-256 recorded at backup";
        }
        return null;
    }

    private Batch fetch(List<ChunkRef> refs, int from) {
        int to = from;
        long bytes = 0;
        while (to < refs.size() && (to == from || bytes + refs.get(to).length() <= fetchBytes)) {
            bytes += refs.get(to).length();
            to++;
        }
        Fingerprint[] fps = new Fingerprint[to - from];
        for (int i = from; i < to; i++) {
            fps[i - from] = refs.get(i).fingerprint();
        }
        return new Batch(from, to, client.chunks(fps));
    }

    /** The store refused a batch: asks for its chunks one by one to name the first it cannot read. */
    private Optional<String> whichChunk(List<ChunkRef> refs, Batch batch) {
        for (int i = batch.from(); i < batch.to(); i++) {
            Fingerprint fp = refs.get(i).fingerprint();
            try {
                await(client.chunks(new Fingerprint[] {fp}));
            } catch (StoreClientException e) {
                // The store's message names the chunk.
                return Optional.of("chunk " + i + " cannot be read: " + aboutTheObject(e));
            }
        }
        return Optional.empty();
    }

    /**
     * The message of a failure that concerns the object asked about (the store could not read it,
     * or sent something inconsistent); rethrows one that ends the check (the connection is gone,
     * the server is stopping).
     */
    private String aboutTheObject(StoreClientException e) {
        boolean object = e instanceof StoreServerException s ? s.code() == ErrorCode.STORE_ERROR : client.isOpen();
        if (!object) {
            throw e;
        }
        return e.getMessage();
    }

    /** The chunks, or the failure as the store client's exception it is. */
    private static List<StoredChunk> await(CompletableFuture<List<StoredChunk>> chunks) {
        try {
            return chunks.join();
        } catch (CompletionException e) {
            throw Futures.cause(e) instanceof RuntimeException r ? r : e;
        }
    }
}
