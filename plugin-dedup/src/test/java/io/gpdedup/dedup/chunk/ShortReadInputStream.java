package io.gpdedup.dedup.chunk;

import java.io.ByteArrayInputStream;
import java.util.SplittableRandom;

/** Returns each read in a random short piece (1..maxRead bytes), as pipes and sockets do. */
final class ShortReadInputStream extends ByteArrayInputStream {
    private final SplittableRandom random;
    private final int maxRead;

    ShortReadInputStream(byte[] data, long seed, int maxRead) {
        super(data);
        this.random = new SplittableRandom(seed);
        this.maxRead = maxRead;
    }

    @Override
    public synchronized int read(byte[] b, int off, int len) {
        if (len == 0) {
            return 0;
        }
        return super.read(b, off, Math.min(len, 1 + random.nextInt(maxRead)));
    }
}
