package io.gpdedup.plugin.agent;

/**
 * The frames of the launcher-agent protocol. On the wire a frame is its type byte, the payload
 * length as a 4-byte big-endian unsigned integer, then the payload; {@link #maxLength} bounds it.
 * The codes and limits are mirrored in the launcher module's {@code src/main/c/frames.h}, which
 * its FramesHeaderTest compares with these.
 */
enum FrameType {
    /** Launcher to agent, first and once: {@link CallRequest}. */
    CALL(0x01, 1 << 20),
    /** Launcher to agent: bytes of the caller's stdin, sent only after {@link #STDIN_REQUEST}. */
    STDIN(0x02, 1 << 20),
    /** Launcher to agent: the caller's stdin reached end of file. Only this ends stdin cleanly. */
    STDIN_EOF(0x03, 0),
    /** Launcher to agent: reading the caller's stdin failed; payload: UTF-8 reason. */
    STDIN_ABORT(0x04, 4096),
    /** Agent to launcher, first: the call was accepted and may now have effects. */
    ACCEPTED(0x11, 0),
    /** Agent to launcher, first: the call was refused before it started; payload: UTF-8 reason. */
    REJECTED(0x12, 4096),
    /**
     * Agent to launcher: the command reads stdin, so the launcher may start relaying it. Optional
     * payload, u64: bytes the agent already read from the caller's stdin directly ({@link CallerStdio}).
     */
    STDIN_REQUEST(0x13, 8),
    /** Agent to launcher: bytes for the caller's stdout. */
    STDOUT(0x14, 1 << 20),
    /** Agent to launcher: bytes for the caller's stderr. */
    STDERR(0x15, 1 << 20),
    /** Agent to launcher, last: exit status as a 4-byte big-endian integer. */
    EXIT(0x16, 4);

    static final int HEADER_BYTES = 5;

    final byte code;
    final int maxLength;

    FrameType(int code, int maxLength) {
        this.code = (byte) code;
        this.maxLength = maxLength;
    }

    /** The type of {@code code}, or null for an unknown code. */
    static FrameType of(byte code) {
        for (FrameType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        return null;
    }
}
