package io.gpdedup.protocol.codec;

/** How a chunk's payload is stored. The id is what goes on disk and on the wire. */
public enum Codec {
    NONE(0), LZ4(1), ZSTD(2);

    private final int id;

    Codec(int id) {
        this.id = id;
    }

    public int id() {
        return id;
    }

    public static Codec ofId(int id) {
        for (Codec c : values()) {
            if (c.id == id) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown codec id " + id);
    }
}
