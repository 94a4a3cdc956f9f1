package io.gpdedup.bench.compare;

import com.github.luben.zstd.ZstdOutputStream;
import io.gpdedup.pg.RowRandom;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;

/**
 * The streams of a comparison made from a COPY-text file a user gives (a real table, as
 * {@code COPY t TO 'file'} writes it): the file itself is the base, and the three later versions
 * change its rows (lines) as the generated tables are changed: 5% of rows in one contiguous run
 * moved to the end with new values, 1% new rows inserted in 10 runs in the middle, 0.1% of rows
 * changed in place at scattered places. A changed or new row keeps its length and shape: some of
 * its digits (in a row without digits, letters) become others, as an UPDATE of a few columns
 * would; escapes and delimiters are never touched. The base is only read; the versions are
 * written to a directory of their own.
 */
final class CopyFileStreams {
    /** Enough rows that each change touches at least one and the inserted runs have rows of their own. */
    static final int MIN_ROWS = 1000;

    private CopyFileStreams() {
    }

    /** The base file and three changed versions of it in {@code dir}; {@code seed} picks the rows. */
    static StreamSet of(Path file, Path dir, long seed) throws IOException {
        Files.createDirectories(dir);
        Scan base = scan(file);
        if (base.lines < MIN_ROWS) {
            throw new IOException(file + " has " + base.lines + (base.lines == 1 ? " row" : " rows") + "; a comparison needs a table of at least "
                    + MIN_ROWS);
        }
        List<StreamFile> files = new ArrayList<>();
        files.add(new StreamFile("base", "base table (" + file.getFileName() + ")", file, base.length, base.sha256, base.length));

        SplittableRandom random = new SplittableRandom(seed);
        long moved = share(base.lines, StreamSet.CLUSTERED_FRACTION);
        long from = random.nextLong(base.lines - moved + 1);
        Path clustered = dir.resolve("clustered.copy");
        Written c = write(file, clustered, new Clustered(from, from + moved, dir.resolve("clustered.moved"), seed));
        files.add(c.file("clustered", StreamSet.CLUSTERED_LABEL, clustered));

        long added = share(base.lines, StreamSet.INSERTED_FRACTION);
        // Runs start early enough that the last one still has rows to copy.
        long[] at = distinct(random, StreamSet.INSERTED_RUNS, base.lines - added);
        Path inserted = dir.resolve("inserted.copy");
        Written i = write(clustered, inserted, new Inserted(at, added, dir.resolve("inserted.run"), seed + 1));
        files.add(i.file("inserted", StreamSet.INSERTED_LABEL, inserted));

        long lines = base.lines + added;
        long[] changed = distinct(random, (int) Math.min(share(lines, StreamSet.SCATTERED_FRACTION), Integer.MAX_VALUE - 8), lines);
        Path scattered = dir.resolve("scattered.copy");
        Written s = write(inserted, scattered, new Scattered(changed, seed + 2));
        files.add(s.file("scattered", StreamSet.SCATTERED_LABEL, scattered));
        return new StreamSet(files, (double) base.length / base.zstdLength);
    }

    /**
     * As {@link #of}, but the versions are kept in {@code dir} and used again by a later run with
     * the same file (path, length and modification time) and seed.
     */
    static StreamSet reuseOrMake(Path file, Path dir, long seed) throws IOException {
        Map<String, String> origin = new LinkedHashMap<>();
        origin.put("copy-file", file.toAbsolutePath().normalize().toString());
        origin.put("copy-file-length", String.valueOf(Files.size(file)));
        origin.put("copy-file-modified", String.valueOf(Files.getLastModifiedTime(file).toMillis()));
        origin.put("seed", String.valueOf(seed));
        return StreamSet.reuseOrMake(dir, origin, () -> of(file, dir, seed));
    }

    /**
     * {@code count} consecutive pieces of {@code file}, cut at row ends, of about equal size: the
     * streams of segments backing up at once, no two holding the same rows.
     */
    static List<StreamFile> pieces(Path file, Path dir, int count) throws IOException {
        Files.createDirectories(dir);
        long length = Files.size(file);
        List<StreamFile> out = new ArrayList<>();
        try (LineReader in = new LineReader(file)) {
            for (int p = 0; p < count; p++) {
                Path piece = dir.resolve("stream-" + p + ".copy");
                long until = p == count - 1 ? Long.MAX_VALUE : length * (p + 1) / count;
                MessageDigest sha = StreamSet.sha256();
                long bytes = 0;
                try (OutputStream o = new DigestOutputStream(new BufferedOutputStream(Files.newOutputStream(piece), 1 << 16), sha)) {
                    while (in.position() < until && in.next()) {
                        o.write(in.line, 0, in.length);
                        bytes += in.length;
                    }
                }
                out.add(new StreamFile("stream-" + p, "piece " + (p + 1) + " of " + count + " of " + file.getFileName(), piece, bytes,
                        HexFormat.of().formatHex(sha.digest()), bytes));
            }
        }
        return out;
    }

    private record Scan(long length, long lines, String sha256, long zstdLength) {
    }

    private static Scan scan(Path file) throws IOException {
        MessageDigest sha = StreamSet.sha256();
        StreamSet.CountingSink zstd = new StreamSet.CountingSink();
        long length = 0;
        long lines = 0;
        byte[] buf = new byte[1 << 20];
        try (InputStream in = Files.newInputStream(file); OutputStream z = new ZstdOutputStream(zstd, 3)) {
            int n;
            while ((n = in.read(buf)) > 0) {
                sha.update(buf, 0, n);
                z.write(buf, 0, n);
                length += n;
                for (int k = 0; k < n; k++) {
                    if (buf[k] == '\n') {
                        lines++;
                    }
                }
            }
        }
        return new Scan(length, lines, HexFormat.of().formatHex(sha.digest()), zstd.count);
    }

    /** What one pass does with each row of the version before. */
    private interface Change {
        /** Writes what row {@code index} becomes; returns the bytes of rows it wrote that the version before lacks. */
        long row(long index, byte[] line, int length, OutputStream out) throws IOException;

        /** Writes what is left after the last row (rows held back, already counted as new by {@link #row}). */
        default void end(OutputStream out) throws IOException {
        }
    }

    private record Written(long length, String sha256, long newBytes) {
        StreamFile file(String step, String label, Path path) {
            return new StreamFile(step, label, path, length, sha256, newBytes);
        }
    }

    private static Written write(Path from, Path to, Change change) throws IOException {
        MessageDigest sha = StreamSet.sha256();
        long newBytes = 0;
        try (LineReader in = new LineReader(from);
             OutputStream out = new DigestOutputStream(new BufferedOutputStream(Files.newOutputStream(to), 1 << 16), sha)) {
            long index = 0;
            while (in.next()) {
                newBytes += change.row(index++, in.line, in.length, out);
            }
            change.end(out);
        }
        return new Written(Files.size(to), HexFormat.of().formatHex(sha.digest()), newBytes);
    }

    /** Rows {@code [from, to)} leave their place and come back at the end, changed. */
    private static final class Clustered implements Change {
        private final long from;
        private final long to;
        private final Path spill;
        private final long seed;
        private final OutputStream moved;

        Clustered(long from, long to, Path spill, long seed) throws IOException {
            this.from = from;
            this.to = to;
            this.spill = spill;
            this.seed = seed;
            this.moved = new BufferedOutputStream(Files.newOutputStream(spill), 1 << 16);
        }

        @Override
        public long row(long index, byte[] line, int length, OutputStream out) throws IOException {
            if (index < from || index >= to) {
                out.write(line, 0, length);
                return 0;
            }
            moved.write(change(line, length, seed, index), 0, length);
            return length;
        }

        @Override
        public void end(OutputStream out) throws IOException {
            moved.close();
            Files.copy(spill, out);
            Files.delete(spill);
        }
    }

    /** Before each row of {@code at}, {@code added / at.length} new rows: changed copies of the rows that follow. */
    private static final class Inserted implements Change {
        private final long[] at;
        private final long perRun;
        private final long extra;
        private final Path spill;
        private final long seed;
        private int run = -1;
        private long left;
        private OutputStream originals;

        Inserted(long[] at, long added, Path spill, long seed) {
            this.at = at;
            this.perRun = added / at.length;
            this.extra = added % at.length;
            this.spill = spill;
            this.seed = seed;
        }

        @Override
        public long row(long index, byte[] line, int length, OutputStream out) throws IOException {
            // A run starts at its row, or right after the run before when that one reached past it.
            if (left == 0 && run + 1 < at.length && index >= at[run + 1]) {
                run++;
                left = perRun + (run < extra ? 1 : 0);
                originals = new BufferedOutputStream(Files.newOutputStream(spill), 1 << 16);
            }
            if (left == 0) {
                out.write(line, 0, length);
                return 0;
            }
            out.write(change(line, length, seed, index), 0, length);
            originals.write(line, 0, length);
            if (--left == 0) {
                flushOriginals(out);
            }
            return length;
        }

        @Override
        public void end(OutputStream out) throws IOException {
            if (originals != null && left > 0) {
                flushOriginals(out);
            }
        }

        private void flushOriginals(OutputStream out) throws IOException {
            originals.close();
            originals = null;
            left = 0;
            Files.copy(spill, out);
            Files.delete(spill);
        }
    }

    /** Rows {@code changed} (sorted) are changed where they are. */
    private record Scattered(long[] changed, long seed) implements Change {
        @Override
        public long row(long index, byte[] line, int length, OutputStream out) throws IOException {
            if (Arrays.binarySearch(changed, index) < 0) {
                out.write(line, 0, length);
                return 0;
            }
            out.write(change(line, length, seed, index), 0, length);
            return length;
        }
    }

    /**
     * A copy of the row with some of its digits replaced by other digits (about one in three,
     * at least one); in a row without digits, one letter by another. A byte after a backslash is
     * part of an escape and never changes, nor does any delimiter or row end.
     */
    static byte[] change(byte[] line, int length, long seed, long index) {
        byte[] out = Arrays.copyOf(line, length);
        int firstDigit = -1;
        int firstLetter = -1;
        boolean changed = false;
        for (int k = 0; k < length; k++) {
            byte b = out[k];
            if (b == '\\') {
                k++;
                continue;
            }
            if (b >= '0' && b <= '9') {
                firstDigit = firstDigit < 0 ? k : firstDigit;
                long h = RowRandom.mix(seed * 31 + index * 1_000_003 + k);
                if (Math.floorMod(h, 3) == 0) {
                    out[k] = (byte) ('0' + (b - '0' + 1 + Math.floorMod(h >>> 8, 9)) % 10);
                    changed = true;
                }
            } else if (firstLetter < 0 && (b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z')) {
                firstLetter = k;
            }
        }
        if (!changed && firstDigit >= 0) {
            out[firstDigit] = (byte) ('0' + (out[firstDigit] - '0' + 1) % 10);
        } else if (!changed && firstLetter >= 0) {
            byte b = out[firstLetter];
            byte base = b >= 'a' ? (byte) 'a' : (byte) 'A';
            out[firstLetter] = (byte) (base + (b - base + 1) % 26);
        }
        return out;
    }

    /** {@code fraction} of {@code rows}, rounded, and at least one. */
    static long share(long rows, double fraction) {
        return Math.max(1, Math.round(rows * fraction));
    }

    /** {@code count} distinct numbers in {@code [0, bound)}, sorted. */
    private static long[] distinct(SplittableRandom random, int count, long bound) {
        TreeSet<Long> picked = new TreeSet<>();
        while (picked.size() < count) {
            picked.add(random.nextLong(bound));
        }
        return picked.stream().mapToLong(Long::longValue).toArray();
    }

    /** The rows of a file, one at a time, each with its newline (the last may lack one). */
    private static final class LineReader implements AutoCloseable {
        private final InputStream in;
        private final byte[] buf = new byte[1 << 16];
        private int pos;
        private int limit;
        byte[] line = new byte[1 << 12];
        int length;
        private long position;

        LineReader(Path file) throws IOException {
            this.in = Files.newInputStream(file);
        }

        /** Bytes of the rows read so far. */
        long position() {
            return position;
        }

        boolean next() throws IOException {
            length = 0;
            while (true) {
                if (pos == limit) {
                    limit = Math.max(0, in.read(buf));
                    pos = 0;
                    if (limit == 0) {
                        break;
                    }
                }
                int end = pos;
                while (end < limit && buf[end] != '\n') {
                    end++;
                }
                boolean found = end < limit;
                int take = (found ? end + 1 : end) - pos;
                if (length + take > line.length) {
                    line = Arrays.copyOf(line, Math.max(line.length * 2, length + take));
                }
                System.arraycopy(buf, pos, line, length, take);
                length += take;
                pos += take;
                if (found) {
                    break;
                }
            }
            position += length;
            return length > 0;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

}
