package io.gpdedup.store.container;

import io.gpdedup.store.chunk.Fingerprint;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Consecutive chunks compressed as one unit: magic, codec id, member count, raw length, stored
 * length, the members (fingerprint and raw length each, in the order of their bytes), the payload,
 * CRC-32C over everything before it. The store writes regions when it recompresses a sealed
 * container: a unit of megabytes compresses far better than each chunk alone, and a restore
 * decodes it once for all its chunks.
 */
public record RegionRecord(int codecId, List<Member> members, byte[] payload) {
    public static final int MAGIC = 0x52474E31; // "RGN1"
    /** Magic, codec, member count, raw length, stored length. */
    public static final int FIXED_HEADER_BYTES = 17;
    public static final int MEMBER_BYTES = Fingerprint.LENGTH + 4;

    /** One chunk of the region: its bytes follow those of the members before it. */
    public record Member(Fingerprint fingerprint, int rawLength) {
    }

    public RegionRecord {
        members = List.copyOf(members);
    }

    /** Bytes of all members together. */
    public int rawLength() {
        long sum = 0;
        for (Member m : members) {
            sum += m.rawLength();
        }
        return Math.toIntExact(sum);
    }

    public int encodedLength() {
        return FIXED_HEADER_BYTES + MEMBER_BYTES * members.size() + payload.length + 4;
    }

    public byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(encodedLength());
        b.putInt(MAGIC);
        b.put((byte) codecId);
        b.putInt(members.size());
        b.putInt(rawLength());
        b.putInt(payload.length);
        byte[] fp = new byte[Fingerprint.LENGTH];
        for (Member m : members) {
            m.fingerprint().copyTo(fp, 0);
            b.put(fp);
            b.putInt(m.rawLength());
        }
        b.put(payload);
        b.putInt(ChunkRecord.crc(ByteBuffer.wrap(b.array(), 0, b.position())));
        return b.array();
    }

    /** Whether the record between {@code rec}'s position and limit starts as a region does. */
    public static boolean startsRegion(ByteBuffer rec) {
        return rec.remaining() >= 4 && rec.getInt(rec.position()) == MAGIC;
    }

    /**
     * The length of the whole record whose first {@link #FIXED_HEADER_BYTES} bytes are
     * {@code header}, or -1 when they are not a region's.
     */
    public static long lengthFromHeader(byte[] header) {
        ByteBuffer b = ByteBuffer.wrap(header);
        if (header.length < FIXED_HEADER_BYTES || b.getInt(0) != MAGIC) {
            return -1;
        }
        int count = b.getInt(5);
        int stored = b.getInt(13);
        if (count < 1 || stored < 0) {
            return -1;
        }
        return FIXED_HEADER_BYTES + (long) MEMBER_BYTES * count + stored + 4;
    }

    /**
     * Parses a whole region between {@code rec}'s position and limit (left unchanged); throws
     * {@link CorruptRecordException} if its magic, lengths or CRC are wrong.
     */
    public static RegionRecord decode(ByteBuffer rec) {
        ByteBuffer b = rec.slice();
        int length = b.remaining();
        if (length < FIXED_HEADER_BYTES + 4) {
            throw new CorruptRecordException("region of " + length + " bytes is shorter than its header");
        }
        byte[] header = new byte[FIXED_HEADER_BYTES];
        b.get(0, header);
        if (lengthFromHeader(header) != length) {
            throw new CorruptRecordException("region header does not match the record size " + length);
        }
        if (b.getInt(length - 4) != ChunkRecord.crc(b.duplicate().limit(length - 4))) {
            throw new CorruptRecordException("region checksum mismatch");
        }
        int count = b.getInt(5);
        List<Member> members = new ArrayList<>(count);
        long sum = 0;
        byte[] fp = new byte[Fingerprint.LENGTH];
        int at = FIXED_HEADER_BYTES;
        for (int i = 0; i < count; i++, at += MEMBER_BYTES) {
            b.get(at, fp);
            int raw = b.getInt(at + Fingerprint.LENGTH);
            if (raw < 0) {
                throw new CorruptRecordException("region member " + i + " has a negative length");
            }
            sum += raw;
            members.add(new Member(Fingerprint.of(fp, 0), raw));
        }
        if (sum != b.getInt(9)) {
            throw new CorruptRecordException("region members add up to " + sum + " bytes, its header says " + b.getInt(9));
        }
        byte[] payload = new byte[b.getInt(13)];
        b.get(at, payload);
        return new RegionRecord(b.get(4) & 0xff, members, payload);
    }
}
