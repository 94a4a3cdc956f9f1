package io.gpdedup.plugin.api;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The byte ranges of a restore_data_subset offsets file: {@code N s1 e1 ... sN eN}, half-open
 * [s, e), the non-empty ones ascending and non-overlapping. gpbackup_helper writes one line without
 * a newline, one range per table to restore in oid order, from the segment's TOC; a trailing newline
 * is tolerated, anything else is rejected before a single byte is written. Empty ranges (s == e) are
 * legal anywhere and write nothing: an empty table has equal start and end offsets, and a table the
 * segment's TOC lacks comes as {@code 0 0} (Go's zero value), wherever its oid falls. N may be 0.
 */
public final class ByteRanges {
    /** Bound on the offsets file so a hostile or broken file cannot exhaust memory. */
    static final int MAX_FILE_BYTES = 64 << 20;
    static final int MAX_RANGES = 2_000_000;

    private final long[] bounds;

    private ByteRanges(long[] bounds) {
        this.bounds = bounds;
    }

    public static ByteRanges of(long... startEndPairs) {
        if (startEndPairs.length % 2 != 0) {
            throw new IllegalArgumentException("pairs expected");
        }
        StringBuilder sb = new StringBuilder().append(startEndPairs.length / 2);
        for (long v : startEndPairs) {
            sb.append(' ').append(v);
        }
        return parse(sb.toString());
    }

    public static ByteRanges read(Path offsetsFile) {
        byte[] data;
        try (InputStream in = Files.newInputStream(offsetsFile)) {
            data = in.readNBytes(MAX_FILE_BYTES + 1);
        } catch (IOException e) {
            throw new PluginException("cannot read offsets file " + offsetsFile + ": " + e.getMessage(), e);
        }
        if (data.length > MAX_FILE_BYTES) {
            throw new PluginException("offsets file " + offsetsFile + " is larger than " + MAX_FILE_BYTES + " bytes");
        }
        try {
            return parse(new String(data, StandardCharsets.US_ASCII));
        } catch (PluginException e) {
            throw new PluginException("offsets file " + offsetsFile + ": " + e.getMessage());
        }
    }

    public static ByteRanges parse(String text) {
        String body = text;
        if (body.endsWith("\r\n")) {
            body = body.substring(0, body.length() - 2);
        } else if (body.endsWith("\n")) {
            body = body.substring(0, body.length() - 1);
        }
        if (body.isEmpty()) {
            throw new PluginException("empty offsets");
        }
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (!(c == ' ' || (c >= '0' && c <= '9'))) {
                throw new PluginException("unexpected character at position " + i + " (expected digits separated by single spaces)");
            }
        }
        String[] words = body.split(" ", -1);
        for (String w : words) {
            if (w.isEmpty()) {
                throw new PluginException("expected numbers separated by single spaces");
            }
        }
        long count = number(words[0], "range count");
        if (count > MAX_RANGES) {
            throw new PluginException("range count " + words[0] + " is out of bounds (0.." + MAX_RANGES + ")");
        }
        if (words.length != 1 + 2 * count) {
            throw new PluginException("range count " + count + " needs " + (2 * count) + " offsets, found " + (words.length - 1));
        }
        long[] bounds = new long[(int) (2 * count)];
        long previousEnd = 0;
        for (int i = 0; i < count; i++) {
            long s = number(words[1 + 2 * i], "start");
            long e = number(words[2 + 2 * i], "end");
            if (e < s) {
                throw new PluginException("range " + (i + 1) + " [" + s + ", " + e + ") ends before it starts");
            }
            if (s < e) {
                if (s < previousEnd) {
                    throw new PluginException("range " + (i + 1) + " [" + s + ", " + e + ") overlaps or precedes the previous range");
                }
                previousEnd = e;
            }
            bounds[2 * i] = s;
            bounds[2 * i + 1] = e;
        }
        return new ByteRanges(bounds);
    }

    private static long number(String w, String what) {
        if (w.length() > 18) {
            throw new PluginException(what + " '" + w + "' is too large");
        }
        return Long.parseLong(w);
    }

    public int count() {
        return bounds.length / 2;
    }

    public long start(int i) {
        return bounds[2 * i];
    }

    public long end(int i) {
        return bounds[2 * i + 1];
    }

    public long totalBytes() {
        long sum = 0;
        for (int i = 0; i < count(); i++) {
            sum += end(i) - start(i);
        }
        return sum;
    }

    /** Rejects ranges that reach past an object of {@code length} bytes, before anything is written. */
    void requireWithin(long length) {
        long last = 0;
        for (int i = 0; i < count(); i++) {
            if (end(i) > start(i)) {
                last = end(i);
            }
        }
        if (last > length) {
            throw new PluginException("range end " + last + " is past the end of the object (" + length + " bytes)");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ByteRanges r && Arrays.equals(bounds, r.bounds);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bounds);
    }

    @Override
    public String toString() {
        return "ByteRanges" + Arrays.toString(bounds);
    }
}
