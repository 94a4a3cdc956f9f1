package io.gpdedup.dedup.chunk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

class ChunkStreamTest {
    private static final ChunkerParams SMALL = ChunkerParams.ofAverage(4096);

    static Stream<Arguments> readPatterns() {
        List<Arguments> cases = new ArrayList<>();
        long seed = 100;
        for (ChunkerParams p : List.of(SMALL, new ChunkerParams(256, 1024, 2000), ChunkerParams.ofAverage(65536))) {
            for (int maxRead : new int[] {1, 7, 1000, 70_000, 1 << 20}) {
                for (int size : new int[] {p.maxSize() - 1, 3 * p.maxSize() + 17, 3 << 20}) {
                    cases.add(Arguments.of(p, maxRead, size, seed++));
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}, reads of 1..{1} bytes, {2} bytes, seed {3}")
    @MethodSource("readPatterns")
    void boundariesDoNotDependOnReadSizes(ChunkerParams params, int maxRead, int size, long seed) {
        Chunker chunker = new Chunker(params);
        byte[] data = Chunks.random(seed, size);
        List<Integer> expected = Chunks.cutAll(chunker, data);
        assertEquals(expected, Chunks.stream(chunker, new ShortReadInputStream(data, seed, maxRead)));
    }

    @Test
    void chunksAreTheStreamBytes() throws IOException {
        byte[] data = Chunks.random(5, 1 << 20);
        byte[] joined = new byte[data.length];
        try (ChunkStream chunks = new Chunker(SMALL).stream(new ShortReadInputStream(data, 5, 5000))) {
            byte[] buffer = chunks.buffer();
            while (chunks.next()) {
                assertSame(buffer, chunks.buffer(), "the buffer is allocated once");
                System.arraycopy(chunks.buffer(), chunks.bufferOffset(), joined, (int) chunks.streamOffset(), chunks.length());
                assertArrayEquals(Arrays.copyOfRange(data, (int) chunks.streamOffset(), (int) chunks.streamOffset() + chunks.length()),
                        chunks.copyChunk());
            }
            assertEquals(data.length, chunks.streamOffset());
            assertEquals(0, chunks.length());
        }
        assertArrayEquals(data, joined);
    }

    @Test
    void emptyInputGivesNoChunk() throws IOException {
        try (ChunkStream chunks = new Chunker(SMALL).stream(new ByteArrayInputStream(new byte[0]))) {
            assertFalse(chunks.next());
            assertFalse(chunks.next());
            assertEquals(0, chunks.length());
        }
    }

    @Test
    void oneByteInputGivesOneChunk() throws IOException {
        try (ChunkStream chunks = new Chunker(SMALL).stream(new ByteArrayInputStream(new byte[] {7}))) {
            assertTrue(chunks.next());
            assertEquals(1, chunks.length());
            assertEquals(0, chunks.streamOffset());
            assertEquals(7, chunks.buffer()[chunks.bufferOffset()]);
            assertFalse(chunks.next());
        }
    }

    @Test
    void bufferIsTwiceMax() {
        assertEquals(2 * SMALL.maxSize(), ChunkStream.bufferSize(SMALL));
    }

    @Test
    void readFailureLosesNothing() throws IOException {
        byte[] data = Chunks.random(77, 200_000);
        Chunker chunker = new Chunker(SMALL);
        InputStream failingOnce = new FailingOnceInputStream(data, 100_000);
        List<Integer> lengths = new ArrayList<>();
        int failures = 0;
        try (ChunkStream chunks = chunker.stream(failingOnce)) {
            while (true) {
                try {
                    if (!chunks.next()) {
                        break;
                    }
                } catch (IOException e) {
                    failures++;
                    continue;
                }
                lengths.add(chunks.length());
            }
        }
        assertEquals(1, failures);
        assertEquals(Chunks.cutAll(chunker, data), lengths);
    }

    @Test
    void closedStreamRefusesNext() throws IOException {
        ChunkStream chunks = new Chunker(SMALL).stream(new ByteArrayInputStream(new byte[10]));
        chunks.close();
        assertThrows(IOException.class, chunks::next);
    }

    /** Serves reads of up to 3000 bytes and fails once, the first time it is past {@code failAt}. */
    private static final class FailingOnceInputStream extends InputStream {
        private final ByteArrayInputStream in;
        private final int failAt;
        private int served;
        private boolean failed;

        FailingOnceInputStream(byte[] data, int failAt) {
            this.in = new ByteArrayInputStream(data);
            this.failAt = failAt;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (!failed && served > failAt) {
                failed = true;
                throw new IOException("disk hiccup");
            }
            int n = in.read(b, off, Math.min(len, 3000));
            served += Math.max(n, 0);
            return n;
        }
    }
}
