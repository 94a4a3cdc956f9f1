package io.gpdedup.dedup.chunk;

import java.io.InputStream;
import java.util.Objects;

/**
 * FastCDC (Xia et al., USENIX ATC 2016) boundary function: a gear rolling hash
 * {@code h = (h << 1) + GEAR[b]}, no hashing before {@code min}, normalised chunking at level 2
 * (a mask with {@code log2(avg)+2} bits from {@code min} to {@code avg}, one with
 * {@code log2(avg)-2} bits from {@code avg} to {@code max}), and a forced cut at {@code max}.
 *
 * <p>Masks take the top bits of the hash: bit {@code k} of a gear hash depends on the last
 * {@code k+1} bytes, so top bits give every cut decision a window of about 64 bytes. A cut
 * happens after the byte at which {@code (h & mask) == 0}. Stateless and thread-safe.
 */
public final class Chunker {
    private static final long[] GEAR = GearTable.GEAR;

    private final ChunkerParams params;
    private final int min;
    private final int avg;
    private final int max;
    private final long maskS;
    private final long maskL;

    public Chunker(ChunkerParams params) {
        this.params = Objects.requireNonNull(params, "params");
        this.min = params.minSize();
        this.avg = params.avgSize();
        this.max = params.maxSize();
        int bits = params.avgBits();
        this.maskS = topBits(bits + 2);
        this.maskL = topBits(bits - 2);
    }

    private static long topBits(int n) {
        return -1L << (64 - n);
    }

    public ChunkerParams params() {
        return params;
    }

    /**
     * Length of the chunk that starts at {@code buf[off]}, given that {@code buf[off, off+len)} is
     * the rest of the stream or at least {@code max} bytes of it. Returns {@code len} when no cut
     * is found before it (the final chunk), never more than {@code max}, and 0 only for
     * {@code len == 0}.
     */
    public int cut(byte[] buf, int off, int len) {
        Objects.checkFromIndexSize(off, len, buf.length);
        if (len <= min) {
            return len;
        }
        int end = off + Math.min(len, max);
        int normal = off + Math.min(len, avg);
        long h = 0;
        int i = off + min;
        // Two plain loops rather than one with a moving mask: the JIT keeps each mask in a register.
        for (; i < normal; i++) {
            h = (h << 1) + GEAR[buf[i] & 0xff];
            if ((h & maskS) == 0) {
                return i - off + 1;
            }
        }
        for (; i < end; i++) {
            h = (h << 1) + GEAR[buf[i] & 0xff];
            if ((h & maskL) == 0) {
                return i - off + 1;
            }
        }
        return end - off;
    }

    /** A streaming chunker over {@code in}; see {@link ChunkStream} for its memory bound. */
    public ChunkStream stream(InputStream in) {
        return new ChunkStream(in, this);
    }
}
