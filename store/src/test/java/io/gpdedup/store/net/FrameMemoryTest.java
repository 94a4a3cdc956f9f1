package io.gpdedup.store.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.protocol.wire.StoreProtocolException;
import io.gpdedup.store.metrics.StoreMetrics;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;

/** The upload frame count: a lone unit may take the whole cap, one of several half, and a release gives back. */
class FrameMemoryTest {
    private static final int MIB = 1 << 20;

    @Test
    void aLoneUnitMayHoldTheWholeCap() {
        FrameMemory m = new FrameMemory(4L * MIB, 1, new StoreMetrics());
        FrameMemory.Account a = m.account("a");
        ByteBuf[] held = {a.take(MIB), a.take(MIB), a.take(MIB), a.take(MIB)};
        StoreProtocolException e = assertThrows(StoreProtocolException.class, () -> a.take(1));
        assertEquals(ErrorCode.THROTTLED, e.code());
        assertTrue(e.getMessage().contains("max-frame-memory-bytes is " + 4 * MIB), e.getMessage());
        for (ByteBuf b : held) {
            a.release(b);
        }
        assertEquals(0, m.held());
        a.release(a.take(4 * MIB));
    }

    @Test
    void oneOfSeveralUnitsMayHoldHalfAndTheOthersTheRest() {
        FrameMemory m = new FrameMemory(4L * MIB, 2, new StoreMetrics());
        FrameMemory.Account a = m.account("a");
        FrameMemory.Account b = m.account("b");
        ByteBuf a1 = a.take(MIB);
        ByteBuf a2 = a.take(MIB);
        StoreProtocolException e = assertThrows(StoreProtocolException.class, () -> a.take(1));
        assertTrue(e.getMessage().contains("unit 'a' has " + 2 * MIB + " bytes of frames in flight"), e.getMessage());
        ByteBuf b1 = b.take(2 * MIB);
        assertEquals(4L * MIB, m.held());
        a.release(a1);
        ByteBuf a3 = a.take(MIB);
        for (ByteBuf x : new ByteBuf[] {a2, a3}) {
            a.release(x);
        }
        b.release(b1);
        assertEquals(0, m.held());
    }
}
