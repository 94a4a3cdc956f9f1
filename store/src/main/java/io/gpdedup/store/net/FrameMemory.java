package io.gpdedup.store.net;

import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.protocol.wire.StoreProtocolException;
import io.gpdedup.store.metrics.StoreMetrics;
import io.netty.buffer.ByteBuf;
import io.netty.util.AttributeKey;
import java.util.HashMap;
import java.util.Map;

/**
 * The frame memory clients hold, server-wide: each upload frame (being received, or received and
 * waiting to be served) counts from the moment its length field is in until it is released. Where
 * there are several units, one unit's connections may hold half of the cap, so that a unit's user
 * who sends lengths and trickles the bytes cannot take the memory other units' backups need. A frame beyond a cap fails
 * its connection with THROTTLED, which a client takes up on a new connection after a pause, as it
 * does a throttled login: for a backup under load that is a wait, not a failure. Replies are not counted:
 * each connection has at most a few of them waiting to be written (see {@link SplitReplyWriter}).
 */
public final class FrameMemory {
    /** A logged-in connection's account, set when it logged in. */
    public static final AttributeKey<Account> ACCOUNT = AttributeKey.valueOf("gpdedup.frame-memory");
    private static final System.Logger LOG = System.getLogger(FrameMemory.class.getName());

    private final long cap;
    private final long unitShare;
    private final StoreMetrics metrics;
    private final Map<String, Long> perUnit = new HashMap<>();
    private long total;

    /** @param units how many units the store serves: with one, it may hold the whole cap */
    FrameMemory(long cap, int units, StoreMetrics metrics) {
        this.cap = cap;
        this.unitShare = units > 1 ? cap / 2 : cap;
        this.metrics = metrics;
        metrics.watchFrameMemory(this::held);
    }

    long cap() {
        return cap;
    }

    long unitShare() {
        return unitShare;
    }

    /** Bytes of upload frames counted now, all units. */
    synchronized long held() {
        return total;
    }

    public Account account(String unit) {
        return new Account(unit);
    }

    /** One connection's side of the count: all its frames go to its unit's. */
    public final class Account {
        private final String unit;

        private Account(String unit) {
            this.unit = unit;
        }

        /**
         * A pooled buffer for a frame of {@code length} bytes, counted until {@link #release}.
         *
         * @throws StoreProtocolException (fatal: the connection cannot go on without reading the frame), having logged and
         *     counted the refusal, when the unit or the server is at its cap
         */
        ByteBuf take(int length) {
            String refused = null;
            synchronized (FrameMemory.this) {
                long ofUnit = perUnit.getOrDefault(unit, 0L);
                if (total + length > cap) {
                    refused = "the store has " + total + " bytes of frames in flight, its max-frame-memory-bytes is " + cap;
                } else if (ofUnit + length > unitShare) {
                    refused = "unit '" + unit + "' has " + ofUnit + " bytes of frames in flight, and may have " + unitShare
                            + " (half of the store's max-frame-memory-bytes, as other units share it)";
                } else {
                    perUnit.put(unit, ofUnit + length);
                    total += length;
                }
            }
            if (refused != null) {
                metrics.limitReached("frame-memory");
                LOG.log(System.Logger.Level.WARNING, "frame of " + length + " bytes of unit '" + unit + "' refused: " + refused);
                throw new StoreProtocolException(ErrorCode.THROTTLED, "frame of " + length + " bytes refused for now: " + refused
                        + "; try again later");
            }
            try {
                return FramePool.take(length);
            } catch (RuntimeException | Error e) {
                giveBack(length);
                throw e;
            }
        }

        /** Releases a buffer of {@link #take} and its count. */
        void release(ByteBuf bytes) {
            int length = bytes.capacity();
            bytes.release();
            giveBack(length);
        }

        private void giveBack(long length) {
            synchronized (FrameMemory.this) {
                long left = perUnit.getOrDefault(unit, 0L) - length;
                if (left > 0) {
                    perUnit.put(unit, left);
                } else {
                    perUnit.remove(unit);
                }
                total -= length;
            }
        }
    }
}
