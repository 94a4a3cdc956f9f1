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
 */
public final class Container implements Closeable {
    public static final int HEADER_BYTES = 16;
    private static final byte[] MAGIC = "GPDCNTR1".getBytes(StandardCharsets.US_ASCII);
    private static final int VERSION = 1;

    private final int id;
    private final Path path;
    private volatile FileChannel channel;
    private volatile boolean closed;
    private volatile long size;

    private Container(int id, Path path, FileChannel channel, long size) {
        this.id = id;
        this.path = path;
        this.channel = channel;
        this.size = size;
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

    /** Creates a new container holding only its header (not yet fsynced; nor is the directory). */
    public static Container create(Path dir, int id) throws IOException {
        Path p = dir.resolve(fileName(id));
        FileChannel ch = FileChannel.open(p, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            ByteBuffer h = ByteBuffer.allocate(HEADER_BYTES);
            h.put(MAGIC).putInt(VERSION).putInt(id).flip();
            writeFully(ch, h, 0);
        } catch (IOException e) {
            ch.close();
            Files.deleteIfExists(p);
            throw e;
        }
        return new Container(id, p, ch, HEADER_BYTES);
    }

    /** Opens an existing container and checks its header. */
    public static Container open(Path path, int id) throws IOException {
        FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            long len = ch.size();
            if (len < HEADER_BYTES) {
                throw new CorruptRecordException("container " + path + " is shorter than its header");
            }
            ByteBuffer h = ByteBuffer.allocate(HEADER_BYTES);
            readFully(ch, h, 0);
            h.flip();
            byte[] magic = new byte[MAGIC.length];
            h.get(magic);
            int version = h.getInt();
            int fileId = h.getInt();
            if (!Arrays.equals(magic, MAGIC) || version != VERSION || fileId != id) {
                throw new CorruptRecordException("container " + path + " has a bad header");
            }
            return new Container(id, path, ch, len);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
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
        long at = size;
        ByteBuffer buf = ByteBuffer.wrap(record);
        while (true) {
            FileChannel ch = channel;
            try {
                writeFully(ch, buf, at + buf.position());
                break;
            } catch (ClosedByInterruptException e) {
                throw e;
            } catch (ClosedChannelException e) {
                reopen(ch);
            }
        }
        size = at + record.length;
        return at;
    }

    /** Reads {@code length} bytes at {@code offset}; fails with {@link EOFException} past the end. */
    public byte[] read(long offset, int length) throws IOException {
        byte[] out = new byte[length];
        ByteBuffer buf = ByteBuffer.wrap(out);
        while (true) {
            FileChannel ch = channel;
            try {
                readFully(ch, buf, offset + buf.position());
                return out;
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
