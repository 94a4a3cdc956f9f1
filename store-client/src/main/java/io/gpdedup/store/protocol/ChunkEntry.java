package io.gpdedup.store.protocol;

import io.gpdedup.store.chunk.StoredChunk;
import io.gpdedup.store.codec.ChunkCodec;
import io.gpdedup.store.codec.Codec;
import io.gpdedup.store.codec.CorruptChunkException;
import java.util.Arrays;

/**
 * An entry of a GET_CHUNKS reply in protocol version 6 and later: one chunk as stored, or every
 * chunk asked for that one region holds (consecutive chunks the store compressed as one unit),
 * which travel as the region's payload once and are cut out of it by the client after one decode.
 * Each chunk comes with its position in the request, since a region's chunks need not be next
 * to each other there.
 */
public sealed interface ChunkEntry {
    /** How many chunks it stands for. */
    int count();

    /** Puts the chunks this entry stands for at their positions in {@code out}, the region decoded when it is one. */
    void placeIn(StoredChunk[] out);

    /** One chunk as stored, the {@code position}-th asked for. */
    record One(int position, StoredChunk chunk) implements ChunkEntry {
        @Override
        public int count() {
            return 1;
        }

        @Override
        public void placeIn(StoredChunk[] out) {
            out[position] = chunk;
        }
    }

    /**
     * A region's payload ({@code codec}, {@code rawLength} bytes once decoded), and for each chunk
     * asked for that it holds, its position in the request and where its bytes are in the decoded
     * region: {@code starts[i]}, {@code lengths[i]} bytes.
     */
    record Region(Codec codec, int rawLength, byte[] payload, int[] positions, int[] starts, int[] lengths) implements ChunkEntry {
        public Region {
            if (positions.length != starts.length || starts.length != lengths.length || starts.length == 0) {
                throw new IllegalArgumentException("a region entry needs as many positions, starts and lengths, and at least one");
            }
            for (int i = 0; i < starts.length; i++) {
                if (positions[i] < 0 || starts[i] < 0 || lengths[i] < 0 || (long) starts[i] + lengths[i] > rawLength) {
                    throw new IllegalArgumentException("chunk " + i + " of a region entry lies outside its " + rawLength + " bytes");
                }
            }
        }

        /** This region with one more chunk cut from it, the {@code position}-th asked for. */
        public Region and(int position, int start, int length) {
            int n = starts.length;
            int[] p = Arrays.copyOf(positions, n + 1);
            int[] s = Arrays.copyOf(starts, n + 1);
            int[] l = Arrays.copyOf(lengths, n + 1);
            p[n] = position;
            s[n] = start;
            l[n] = length;
            return new Region(codec, rawLength, payload, p, s, l);
        }

        @Override
        public int count() {
            return starts.length;
        }

        /**
         * Decodes the region and cuts its chunks out (codec NONE each).
         *
         * @throws CorruptChunkException when the payload does not decode to {@code rawLength} bytes
         */
        @Override
        public void placeIn(StoredChunk[] out) {
            placeIn(out, ChunkCodec.decode(codec, rawLength, payload, payload.length));
        }

        /** As {@link #placeIn(StoredChunk[])}, with the region's payload already decoded into {@code raw}. */
        public void placeIn(StoredChunk[] out, byte[] raw) {
            if (raw.length != rawLength) {
                throw new IllegalArgumentException("a region of " + rawLength + " bytes cannot be cut from " + raw.length);
            }
            for (int i = 0; i < starts.length; i++) {
                out[positions[i]] = new StoredChunk(Codec.NONE, lengths[i], Arrays.copyOfRange(raw, starts[i], starts[i] + lengths[i]));
            }
        }
    }
}
