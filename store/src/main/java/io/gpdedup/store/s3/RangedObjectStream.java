package io.gpdedup.store.s3;

import io.gpdedup.protocol.concurrent.Futures;
import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * An object read in order as ranged GETs of fixed-size parts, several under way ahead of the
 * reader: a large object (the index checkpoint) arrives at the pace of several connections, and
 * its reader parses the first parts while the next are still on the wire. Every part after the
 * first is read under the first one's ETag, so the stream never mixes two versions of the object
 * (a change meanwhile fails a read with a {@link BucketException.Kind#CONFLICT}). Not thread-safe.
 */
final class RangedObjectStream extends InputStream {
    private final Bucket bucket;
    private final String key;
    private final long length;
    private final String etag;
    private final int partBytes;
    private final int parts;
    private final byte[][] buffers; // part p is read into buffers[p % buffers.length]
    private final Future<?>[] pending;
    private final ExecutorService pool;
    private int part; // the part being read
    private int pos;
    private int limit;

    private RangedObjectStream(Bucket bucket, String key, Bucket.Part first, byte[] firstBuffer, int partBytes, int ahead) {
        this.bucket = bucket;
        this.key = key;
        this.length = first.objectLength();
        this.etag = first.etag();
        this.partBytes = partBytes;
        this.parts = (int) ((length + partBytes - 1) / partBytes);
        int ring = Math.max(1, Math.min(parts, ahead + 1));
        this.buffers = new byte[ring][];
        this.buffers[0] = firstBuffer;
        this.pending = new Future<?>[ring];
        this.limit = first.read();
        this.pool = ring == 1 ? null : Executors.newFixedThreadPool(ring - 1, r -> {
            Thread t = new Thread(r, "gpdedup-s3-ranged-read");
            t.setDaemon(true);
            return t;
        });
        for (int p = 1; p < ring; p++) {
            buffers[p] = new byte[partBytes];
            fetch(p);
        }
    }

    /**
     * Opens {@code key}, reading its first {@code partBytes} bytes at once and then up to {@code
     * ahead} parts in parallel ahead of the reader; empty when there is no such object.
     */
    static Optional<RangedObjectStream> open(Bucket bucket, String key, int partBytes, int ahead) throws BucketException {
        byte[] first = new byte[partBytes];
        Optional<Bucket.Part> p = bucket.getPart(key, 0, first, null);
        if (p.isEmpty()) {
            return Optional.empty();
        }
        if (p.get().read() != Math.min(partBytes, p.get().objectLength())) {
            throw new BucketException(BucketException.Kind.FAILED, "read " + key + ": got " + p.get().read() + " bytes of the first "
                    + Math.min(partBytes, p.get().objectLength()), null);
        }
        return Optional.of(new RangedObjectStream(bucket, key, p.get(), first, partBytes, ahead));
    }

    /** The object's length in bytes. */
    long length() {
        return length;
    }

    private void fetch(int p) {
        byte[] into = buffers[p % buffers.length];
        long offset = (long) p * partBytes;
        int want = (int) Math.min(partBytes, length - offset);
        pending[p % pending.length] = pool.submit(() -> {
            byte[] target = want == into.length ? into : java.util.Arrays.copyOf(into, want); // the last part may be shorter
            Bucket.Part got = bucket.getPart(key, offset, target, etag).orElseThrow(() -> new BucketException(BucketException.Kind.CONFLICT,
                    "read " + key + ": deleted while it was read", null));
            if (got.read() != want || got.objectLength() != length || !Objects.equals(got.etag(), etag)) {
                throw new BucketException(BucketException.Kind.CONFLICT, "read " + key + ": changed while it was read", null);
            }
            if (target != into) {
                System.arraycopy(target, 0, into, 0, want);
            }
            return want;
        });
    }

    private boolean advance() throws IOException {
        if (part + 1 >= parts) {
            return false;
        }
        int done = part;
        part++;
        if (done + buffers.length < parts) {
            fetch(done + buffers.length); // the buffer just read is free again
        }
        limit = (Integer) Futures.await(pending[part % pending.length],
                c -> c instanceof IOException io ? io : new IOException("read " + key + ": " + c.getMessage(), c),
                e -> new IOException("interrupted while reading " + key, e));
        pos = 0;
        return true;
    }

    @Override
    public int read() throws IOException {
        if (pos == limit && !advance()) {
            return -1;
        }
        return buffers[part % buffers.length][pos++] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (pos == limit && !advance()) {
            return -1;
        }
        int n = Math.min(len, limit - pos);
        System.arraycopy(buffers[part % buffers.length], pos, b, off, n);
        pos += n;
        return n;
    }

    @Override
    public void close() {
        if (pool != null) {
            pool.shutdownNow();
        }
    }
}
