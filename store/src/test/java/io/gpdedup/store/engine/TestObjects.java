package io.gpdedup.store.engine;

import com.github.luben.zstd.Zstd;
import io.gpdedup.protocol.codec.ChunkCodec;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.StoredChunk;
import java.io.ByteArrayOutputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.LongAdder;
import net.jpountz.lz4.LZ4Factory;

/** Test helpers: back up a byte array the way the plugin would, and restore it. */
final class TestObjects {
    private TestObjects() {
    }

    /** Deterministic data; {@code compressible} data repeats a short alphabet so codecs shrink it. */
    static byte[] data(long seed, int length, boolean compressible) {
        Random r = new Random(seed);
        byte[] b = new byte[length];
        if (compressible) {
            for (int i = 0; i < length; i++) {
                b[i] = (byte) ('a' + r.nextInt(4));
            }
        } else {
            r.nextBytes(b);
        }
        return b;
    }

    static byte[] encode(Codec codec, byte[] raw) {
        return switch (codec) {
            case NONE -> raw.clone();
            case LZ4 -> LZ4Factory.fastestInstance().fastCompressor().compress(raw);
            case ZSTD -> Zstd.compress(raw, 3);
        };
    }

    /** Splits into fixed-size chunks, uploads the missing ones and commits; returns the recipe. */
    static Recipe backup(StorageUnit unit, String name, byte[] data, int chunkSize, Codec codec) {
        try (BackupLease lease = unit.beginBackup()) {
            Recipe recipe = upload(lease, data, chunkSize, codec);
            lease.commit(name, recipe).join();
            return recipe;
        }
    }

    /** As {@link #backup}, adding to {@code deduplicated} the chunks the unit already had. */
    static Recipe backup(StorageUnit unit, String name, byte[] data, int chunkSize, Codec codec, LongAdder deduplicated) {
        try (BackupLease lease = unit.beginBackup()) {
            Recipe recipe = upload(lease, data, chunkSize, codec, deduplicated);
            lease.commit(name, recipe).join();
            return recipe;
        }
    }

    static Recipe upload(BackupLease lease, byte[] data, int chunkSize, Codec codec) {
        return upload(lease, data, chunkSize, codec, new LongAdder());
    }

    private static Recipe upload(BackupLease lease, byte[] data, int chunkSize, Codec codec, LongAdder deduplicated) {
        List<byte[]> chunks = new ArrayList<>();
        for (int off = 0; off < data.length; off += chunkSize) {
            chunks.add(Arrays.copyOfRange(data, off, Math.min(data.length, off + chunkSize)));
        }
        Fingerprint[] fps = new Fingerprint[chunks.size()];
        List<ChunkRef> refs = new ArrayList<>();
        for (int i = 0; i < fps.length; i++) {
            fps[i] = Fingerprint.compute(chunks.get(i), 0, chunks.get(i).length);
            refs.add(new ChunkRef(fps[i], chunks.get(i).length));
        }
        boolean[] missing = lease.missing(fps);
        for (int i = 0; i < fps.length; i++) {
            if (missing[i]) {
                byte[] raw = chunks.get(i);
                lease.put(fps[i], codec, raw.length, encode(codec, raw));
            } else {
                deduplicated.increment();
            }
        }
        return new Recipe(refs, data.length, sha256(data));
    }

    static byte[] restore(StorageUnit unit, String name) {
        Recipe r = unit.recipe(name).orElseThrow(() -> new AssertionError("no object " + name));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (ChunkRef ref : r.chunks()) {
            StoredChunk c = unit.read(ref.fingerprint());
            byte[] raw = ChunkCodec.decode(c.codec(), c.rawLength(), c.payload(), c.payload().length);
            if (!Fingerprint.compute(raw, 0, raw.length).equals(ref.fingerprint())) {
                throw new AssertionError("chunk " + ref.fingerprint() + " restores wrong bytes");
            }
            out.writeBytes(raw);
        }
        byte[] all = out.toByteArray();
        if (!Arrays.equals(sha256(all), r.streamSha256())) {
            throw new AssertionError("stream hash mismatch for " + name);
        }
        return all;
    }

    static byte[] concat(byte[] x, byte[] y) {
        byte[] out = Arrays.copyOf(x, x.length + y.length);
        System.arraycopy(y, 0, out, x.length, y.length);
        return out;
    }

    static byte[] sha256(byte[] data) {
        MessageDigest md = Fingerprint.newDigest();
        md.update(data);
        return md.digest();
    }
}
