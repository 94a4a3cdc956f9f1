package io.gpdedup.protocol.model;

import java.time.Instant;
import java.util.Locale;

/**
 * The retention lock recorded with a committed object: until {@code untilMillis} the object may
 * not be deleted or replaced; a governance lock yields to a unit admin who asks to bypass it, a
 * compliance lock to nobody.
 */
public record RetentionLock(Mode mode, long untilMillis) {
    /** No lock: what objects committed without a unit retention lock carry. */
    public static final RetentionLock NONE = new RetentionLock(Mode.NONE, 0);

    /** How a lock yields; the codes are what the recipe file and the wire carry. */
    public enum Mode {
        NONE(0),
        GOVERNANCE(1),
        COMPLIANCE(2);

        private final int code;

        Mode(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        public static Mode ofCode(int code) {
            for (Mode m : values()) {
                if (m.code == code) {
                    return m;
                }
            }
            throw new IllegalArgumentException("unknown retention lock mode " + code);
        }

        /** The config's and the messages' word: governance, compliance. */
        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The mode a config word names. */
        public static Mode parse(String word) {
            if (word != null) {
                for (Mode m : values()) {
                    if (m != NONE && m.word().equals(word)) {
                        return m;
                    }
                }
            }
            throw new IllegalArgumentException("'" + word + "' is not a retention lock mode (governance or compliance)");
        }
    }

    public RetentionLock {
        if (mode == null) {
            throw new IllegalArgumentException("a retention lock needs a mode");
        }
        if (mode == Mode.NONE ? untilMillis != 0 : untilMillis <= 0) {
            throw new IllegalArgumentException("retention lock " + mode.word() + " with end " + untilMillis);
        }
    }

    /** Whether the lock still holds at {@code nowMillis}. */
    public boolean holdsAt(long nowMillis) {
        return mode != Mode.NONE && nowMillis < untilMillis;
    }

    /** The later-ending of two locks, compliance over governance when both hold as long. */
    public RetentionLock max(RetentionLock other) {
        if (other.untilMillis != untilMillis) {
            return other.untilMillis > untilMillis ? other : this;
        }
        return other.mode.code > mode.code ? other : this;
    }

    /** For messages: "locked until 2026-12-28T10:00:00Z (governance)". */
    public String describe() {
        return mode == Mode.NONE ? "not locked" : "locked until " + Instant.ofEpochMilli(untilMillis) + " (" + mode.word() + ")";
    }
}
