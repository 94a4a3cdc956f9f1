package io.gpdedup.store.reliability;

import io.gpdedup.client.BackupSession;
import io.gpdedup.client.StoreClient;
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

/** Writes and reads whole objects through the client, uncompressed, as the plugin would. */
public final class ObjectIo {
    private ObjectIo() {
    }

    public static byte[] random(long seed, int length) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    public static void write(StoreClient client, String name, byte[] data, int chunkSize) {
        List<ChunkRef> refs = new ArrayList<>();
        List<ChunkUpload> uploads = new ArrayList<>();
        for (int off = 0; off < data.length; off += chunkSize) {
            byte[] raw = Arrays.copyOfRange(data, off, Math.min(data.length, off + chunkSize));
            Fingerprint fp = Fingerprint.compute(raw, 0, raw.length);
            refs.add(new ChunkRef(fp, raw.length));
            uploads.add(new ChunkUpload(fp, Codec.NONE, raw.length, raw));
        }
        MessageDigest md = Fingerprint.newDigest();
        md.update(data);
        try (BackupSession b = client.beginBackup()) {
            Fingerprint[] fps = refs.stream().map(ChunkRef::fingerprint).toArray(Fingerprint[]::new);
            boolean[] missing = b.missing(fps).join();
            List<ChunkUpload> needed = new ArrayList<>();
            for (int i = 0; i < missing.length; i++) {
                if (missing[i]) {
                    needed.add(uploads.get(i));
                }
            }
            if (!needed.isEmpty()) {
                b.put(needed).join();
            }
            b.commit(name, new Recipe(refs, data.length, md.digest())).join();
        }
    }

    public static byte[] read(StoreClient client, String name) {
        Recipe r = client.recipe(name).orElseThrow(() -> new AssertionError("no object " + name));
        Fingerprint[] fps = r.chunks().stream().map(ChunkRef::fingerprint).toArray(Fingerprint[]::new);
        List<StoredChunk> chunks = client.chunks(fps).join();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (StoredChunk c : chunks) {
            if (c.codec() != Codec.NONE) {
                throw new AssertionError("these tests write uncompressed chunks only");
            }
            out.writeBytes(c.payload());
        }
        return out.toByteArray();
    }
}
