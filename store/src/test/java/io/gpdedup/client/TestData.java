package io.gpdedup.client;

import com.github.luben.zstd.Zstd;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.protocol.wire.ChunkUpload;
import java.io.ByteArrayOutputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import net.jpountz.lz4.LZ4Factory;

/** A test object cut into fixed-size chunks the way the plugin would send it, and its restore. */
final class TestData {
    final byte[] bytes;
    final List<ChunkUpload> uploads = new ArrayList<>();
    final Recipe recipe;

    private TestData(byte[] bytes, int chunkSize, Codec codec) {
        this.bytes = bytes;
        List<ChunkRef> refs = new ArrayList<>();
        for (int off = 0; off < bytes.length; off += chunkSize) {
            byte[] raw = Arrays.copyOfRange(bytes, off, Math.min(bytes.length, off + chunkSize));
            Fingerprint fp = Fingerprint.compute(raw, 0, raw.length);
            refs.add(new ChunkRef(fp, raw.length));
            uploads.add(new ChunkUpload(fp, codec, raw.length, encode(codec, raw)));
        }
        MessageDigest md = Fingerprint.newDigest();
        md.update(bytes);
        this.recipe = new Recipe(refs, bytes.length, md.digest()).withChunkListSha256();
    }

    static TestData random(long seed, int length, int chunkSize, Codec codec) {
        byte[] b = new byte[length];
        Random r = new Random(seed);
        if (codec == Codec.NONE) {
            r.nextBytes(b);
        } else {
            for (int i = 0; i < length; i++) {
                b[i] = (byte) ('a' + r.nextInt(4));
            }
        }
        return new TestData(b, chunkSize, codec);
    }

    static TestData of(byte[] bytes, int chunkSize, Codec codec) {
        return new TestData(bytes, chunkSize, codec);
    }

    Fingerprint[] fingerprints() {
        return recipe.chunks().stream().map(ChunkRef::fingerprint).toArray(Fingerprint[]::new);
    }

    /** The uploads whose bit is set. */
    List<ChunkUpload> only(boolean[] missing) {
        List<ChunkUpload> out = new ArrayList<>();
        for (int i = 0; i < missing.length; i++) {
            if (missing[i]) {
                out.add(uploads.get(i));
            }
        }
        return out;
    }

    /**
     * Stores batch {@code i} of {@code batches} of this object's chunks in {@code session}: their
     * fingerprints, then the uploads of those the store says it lacks.
     */
    CompletableFuture<Void> storeBatch(BackupSession session, int i, int batches) {
        int per = (uploads.size() + batches - 1) / batches;
        int n = uploads.size();
        List<ChunkUpload> batch = uploads.subList(Math.min(n, i * per), Math.min(n, (i + 1) * per));
        byte[] fingerprints = new byte[batch.size() * Fingerprint.LENGTH];
        for (int k = 0; k < batch.size(); k++) {
            batch.get(k).fingerprint().copyTo(fingerprints, k * Fingerprint.LENGTH);
        }
        return session.store(fingerprints, missing -> {
            List<ChunkUpload> up = new ArrayList<>();
            for (int k = 0; k < missing.length; k++) {
                if (missing[k]) {
                    up.add(batch.get(k));
                }
            }
            return CompletableFuture.completedFuture(up);
        });
    }

    static byte[] encode(Codec codec, byte[] raw) {
        return switch (codec) {
            case NONE -> raw.clone();
            case LZ4 -> LZ4Factory.fastestInstance().fastCompressor().compress(raw);
            case ZSTD -> Zstd.compress(raw, 3);
        };
    }

    static byte[] decode(StoredChunk c) {
        return switch (c.codec()) {
            case NONE -> c.payload();
            case LZ4 -> LZ4Factory.fastestInstance().safeDecompressor().decompress(c.payload(), c.rawLength());
            case ZSTD -> Zstd.decompress(c.payload(), c.rawLength());
        };
    }

    /** Restores an object as the plugin would: recipe, chunks, decode, check each chunk and the whole. */
    static byte[] restore(StoreClient client, String name) {
        Recipe r = client.recipe(name).orElseThrow(() -> new AssertionError("no object " + name));
        Fingerprint[] fps = r.chunks().stream().map(ChunkRef::fingerprint).toArray(Fingerprint[]::new);
        List<StoredChunk> chunks = client.chunks(fps).join();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < fps.length; i++) {
            byte[] raw = decode(chunks.get(i));
            if (!Fingerprint.compute(raw, 0, raw.length).equals(fps[i])) {
                throw new AssertionError("chunk " + i + " does not match its fingerprint");
            }
            out.write(raw, 0, raw.length);
        }
        byte[] all = out.toByteArray();
        MessageDigest md = Fingerprint.newDigest();
        if (!Arrays.equals(md.digest(all), r.streamSha256())) {
            throw new AssertionError("stream hash mismatch");
        }
        return all;
    }
}
