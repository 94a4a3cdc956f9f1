package io.gpdedup.store.container;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * One container file. Appends are serialized by the caller; reads may run concurrently with
 * appends and with each other (positional reads on one channel).
 *
 * <p>The header (docs/format.md section 2.1) is never needed to read a record: the id comes from
 * the file name and every record carries its own magic and checksum. A damaged header is
 * therefore only reported ({@link #headerProblem()}), and the container stays readable.
 */
public final class Container implements Closeable {
    /** What a container written now starts with: the header block and its copy. */
    public static final int HEADER_BYTES = 40;
    /** The header of a version 1 container, which had no copy and no checksum. */
    public static final int V1_HEADER_BYTES = 16;
    /** Magic, version, id, CRC-32C of those: written twice from version 2 on. */
    private static final int BLOCK_BYTES = 20;
    private static final byte[] MAGIC = "GPDCNTR1".getBytes(StandardCharsets.US_ASCII);
    private static final int VERSION = 2;

    /** Where the records start, and what is wrong with the header ({@code null}: nothing). */
    private record Layout(long dataStart, String problem) {
    }

    private final int id;
    private final Path path;
    // Set once, before the container is handed out.
    private long dataStart;
    private String openProblem;
    private volatile FileChannel channel;
    private volatile boolean closed;
    private volatile long size;

    private Container(int id, Path path, FileChannel channel, long size, Layout layout) {
        this.id = id;
        this.path = path;
        this.channel = channel;
        this.size = size;
        setLayout(layout);
    }

    private void setLayout(Layout layout) {
        this.dataStart = layout.dataStart();
        this.openProblem = layout.problem();
    }

    public static String fileName(int id) {
        return String.format("%08d.ctr", id);
    }

    /** The id in a container file name, or -1 if the name is not one. */
    public static int idOf(String fileName) {
        if (!fileName.endsWith(".ctr") || fileName.length() < 12) {
            return -1;
        }
        String digits = fileName.substring(0, fileName.length() - 4);
        for (int i = 0; i < digits.length(); i++) {
            if (!Character.isDigit(digits.charAt(i))) {
                return -1;
            }
        }
        try {
            int id = Integer.parseInt(digits);
            return id > 0 && fileName(id).equals(fileName) ? id : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Creates a new container holding only its header and the header's copy (not yet fsynced; nor is the directory). */
    public static Container create(Path dir, int id) throws IOException {
        Path p = dir.resolve(fileName(id));
        FileChannel ch = OwnerOnly.open(p, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            ByteBuffer h = ByteBuffer.allocate(HEADER_BYTES);
            h.put(MAGIC).putInt(VERSION).putInt(id);
            h.putInt(ChunkRecord.crc(ByteBuffer.wrap(h.array(), 0, BLOCK_BYTES - 4)));
            h.put(h.array(), 0, BLOCK_BYTES).flip();
            writeFully(ch, h, 0);
        } catch (IOException e) {
            ch.close();
            Files.deleteIfExists(p);
            throw e;
        }
        return new Container(id, p, ch, HEADER_BYTES, new Layout(HEADER_BYTES, null));
    }

    /**
     * Whether a file too short to hold a record after any header is a version 1 container with
     * only its header: anything else that short is a creation cut off by a crash.
     */
    static boolean isEmptyV1(byte[] file, int id) {
        return file.length == V1_HEADER_BYTES && isV1Header(file, id);
    }

    /**
     * Opens an existing container of either version. Its header is checked, but a damaged one
     * does not stop the open: the records say where they start (see {@link #headerProblem()}).
     */
    public static Container open(Path path, int id) throws IOException {
        FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            long len = ch.size();
            if (len < V1_HEADER_BYTES) {
                throw new CorruptRecordException("container " + path + " is shorter than its header");
            }
            Container c = new Container(id, path, ch, len, new Layout(V1_HEADER_BYTES, null));
            c.setLayout(c.inspectHeader());
            return c;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /**
     * Reads the header again and says what is wrong with it, or {@code null} when it is intact
     * (for verify: damage after the open is found too).
     */
    public String headerProblem() throws IOException {
        return inspectHeader().problem();
    }

    /** What was wrong with the header when the container was opened; {@code null}: nothing. */
    public String problemAtOpen() {
        return openProblem;
    }

    /** Offset of the first record: 40 (version 2) or 16 (version 1). */
    public long dataStart() {
        return dataStart;
    }

    private Layout inspectHeader() throws IOException {
        long len = size;
        byte[] h = read(0, (int) Math.min(HEADER_BYTES, len));
        boolean first = isV2Block(h, 0, id);
        boolean copy = isV2Block(h, BLOCK_BYTES, id);
        if (first && copy) {
            return new Layout(HEADER_BYTES, null);
        }
        if (first || copy) {
            return new Layout(HEADER_BYTES, first ? "header copy damaged (the header is intact)" : "header damaged (its copy is intact)");
        }
        if (isV1Header(h, id)) {
            return new Layout(V1_HEADER_BYTES, null);
        }
        // Neither header can be trusted: the first valid record tells the version apart.
        if (ContainerScanner.validRecordAt(this, HEADER_BYTES, len) > 0) {
            return new Layout(HEADER_BYTES, "header and its copy damaged; records are read without them");
        }
        if (ContainerScanner.validRecordAt(this, V1_HEADER_BYTES, len) > 0) {
            return new Layout(V1_HEADER_BYTES, "header damaged; records are read without it");
        }
        long start = len >= HEADER_BYTES && hasMagicAt(h, BLOCK_BYTES) ? HEADER_BYTES : V1_HEADER_BYTES;
        return new Layout(start, "header damaged; records are read without it");
    }

    /**
     * What is wrong with a container header read on its own (its first {@value #HEADER_BYTES}
     * bytes), as {@link #headerProblem()} says it; {@code null} when it is intact.
     */
    public static String headerProblemOf(byte[] h, int id) {
        boolean first = isV2Block(h, 0, id);
        boolean copy = isV2Block(h, BLOCK_BYTES, id);
        if (first && copy || isV1Header(h, id)) {
            return null;
        }
        if (first || copy) {
            return first ? "header copy damaged (the header is intact)" : "header damaged (its copy is intact)";
        }
        return "header and its copy damaged; records are read without them";
    }

    private static boolean isV2Block(byte[] h, int at, int id) {
        if (h.length < at + BLOCK_BYTES || !hasMagicAt(h, at)) {
            return false;
        }
        ByteBuffer b = ByteBuffer.wrap(h, at, BLOCK_BYTES);
        b.position(at + MAGIC.length);
        int version = b.getInt();
        int fileId = b.getInt();
        return version == VERSION && fileId == id && b.getInt() == ChunkRecord.crc(ByteBuffer.wrap(h, at, BLOCK_BYTES - 4));
    }

    private static boolean isV1Header(byte[] h, int id) {
        if (h.length < V1_HEADER_BYTES || !hasMagicAt(h, 0)) {
            return false;
        }
        ByteBuffer b = ByteBuffer.wrap(h);
        return b.getInt(MAGIC.length) == 1 && b.getInt(MAGIC.length + 4) == id;
    }

    private static boolean hasMagicAt(byte[] h, int at) {
        return h.length >= at + MAGIC.length && Arrays.equals(h, at, at + MAGIC.length, MAGIC, 0, MAGIC.length);
    }

    public int id() {
        return id;
    }

    public Path path() {
        return path;
    }

    /** Bytes in the file, header included. */
    public long size() {
        return size;
    }

    /** Appends an encoded record; returns its offset. Callers serialize appends to one container. */
    public long append(byte[] record) throws IOException {
        return append(ByteBuffer.wrap(record));
    }

    /** Appends the encoded record between {@code record}'s position and limit; returns its offset. */
    public long append(ByteBuffer record) throws IOException {
        long at = size;
        ByteBuffer buf = record.duplicate();
        int start = buf.position();
        int length = buf.remaining();
        while (true) {
            FileChannel ch = channel;
            try {
                writeFully(ch, buf, at + buf.position() - start);
                break;
            } catch (ClosedByInterruptException e) {
                throw e;
            } catch (ClosedChannelException e) {
                reopen(ch);
            } catch (IOException e) {
                dropPartialWrite(ch, at);
                throw e;
            }
        }
        size = at + length;
        return at;
    }

    /**
     * A write that failed half-way (a full disk) leaves part of a record past the end; cutting it
     * off frees its blocks and keeps the file a sequence of whole records. Needs no free space.
     */
    private static void dropPartialWrite(FileChannel ch, long end) {
        try {
            if (ch.size() > end) {
                ch.truncate(end);
            }
        } catch (IOException e) {
            // The next open cuts it as a torn tail.
        }
    }

    /** Reads {@code length} bytes at {@code offset}; fails with {@link EOFException} past the end. */
    public byte[] read(long offset, int length) throws IOException {
        byte[] out = new byte[length];
        read(offset, ByteBuffer.wrap(out));
        return out;
    }

    /**
     * Reads the bytes at {@code offset} into {@code into} from its position to its limit (its
     * position ends at its limit); fails with {@link EOFException} past the end. Into a direct
     * buffer, without the copy through a temporary one that a heap array costs.
     */
    public void read(long offset, ByteBuffer into) throws IOException {
        int start = into.position();
        while (true) {
            FileChannel ch = channel;
            try {
                readFully(ch, into, offset + into.position() - start);
                return;
            } catch (ClosedByInterruptException e) {
                throw e;
            } catch (ClosedChannelException e) {
                reopen(ch);
            }
        }
    }

    public void force() throws IOException {
        while (true) {
            FileChannel ch = channel;
            try {
                ch.force(false);
                return;
            } catch (ClosedByInterruptException e) {
                throw e;
            } catch (ClosedChannelException e) {
                reopen(ch);
            }
        }
    }

    /**
     * An interrupted thread closes a FileChannel for every user of it; a container not closed on
     * purpose is reopened so one cancelled request cannot break the unit. After {@link #close()}
     * this throws ClosedChannelException, which tells readers the container was removed.
     */
    private synchronized void reopen(FileChannel dead) throws IOException {
        if (closed) {
            throw new ClosedChannelException();
        }
        if (channel == dead) {
            channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        }
    }

    /** Cuts the file to {@code newSize} bytes and fsyncs it: used only to drop a torn tail. */
    public void truncate(long newSize) throws IOException {
        FileChannel ch = channel;
        ch.truncate(newSize);
        ch.force(true);
        size = newSize;
    }

    public boolean isOpen() {
        return !closed;
    }

    @Override
    public synchronized void close() throws IOException {
        closed = true;
        channel.close();
    }

    private static void writeFully(FileChannel ch, ByteBuffer buf, long position) throws IOException {
        long pos = position;
        while (buf.hasRemaining()) {
            pos += ch.write(buf, pos);
        }
    }

    private static void readFully(FileChannel ch, ByteBuffer buf, long position) throws IOException {
        long pos = position;
        while (buf.hasRemaining()) {
            int n = ch.read(buf, pos);
            if (n < 0) {
                throw new EOFException("read past the end of a container at " + pos);
            }
            pos += n;
        }
    }
}
