package io.gpdedup.protocol.wire;

/**
 * One field of a record's body: its value taken from the record and written, or read back for
 * the record's constructor. {@link Fields} makes them, one per type of docs/protocol.md section 1.
 */
interface Field<R, T> {
    long size(R record);

    /** Writes exactly {@link #size} bytes. */
    void write(WireWriter out, R record);

    /** @throws StoreProtocolException if the bytes break docs/protocol.md */
    T read(WireReader in);
}
