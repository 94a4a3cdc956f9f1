package io.gpdedup.protocol.wire;

import java.util.List;
import java.util.OptionalInt;

/** The protocol versions this build speaks, and the handshake's choice among them. */
public final class ProtocolVersions {
    public static final int V1 = 1;
    /** Adds background replication: REPLICATE and REPLICATION_STATUS. */
    public static final int V2 = 2;
    /** Adds what a client needs to ride out gaps and store restarts: SYNC and SETTINGS. */
    public static final int V3 = 3;
    /** Adds the chunk list SHA-256 at the end of COMMIT and RECIPE, for restores that need no second pass over the stream. */
    public static final int V4 = 4;
    /**
     * Lets COMMIT carry no stream SHA-256 (zero bytes) when the chunk list SHA-256 proves the stream:
     * a backup then makes no second pass over its bytes.
     */
    public static final int V5 = 5;
    /**
     * Adds what retention locks and roles need: the locks of listed objects, a delete that may
     * bypass governance locks, and the error codes LOCKED, FORBIDDEN and EXISTS.
     */
    public static final int V6 = 6;
    /**
     * Adds NOT_SERVED: the answer of a store that does not hold the unit now (a standby), after
     * which a client given several store addresses tries the next.
     */
    public static final int V7 = 7;
    /** What this build offers in HELLO and accepts from it. */
    public static final List<Integer> SUPPORTED = List.of(V1, V2, V3, V4, V5, V6, V7);

    private ProtocolVersions() {
    }

    /** The highest version both sides speak, if any. */
    public static OptionalInt choose(List<Integer> offered) {
        int best = -1;
        for (int v : offered) {
            if (SUPPORTED.contains(v) && v > best) {
                best = v;
            }
        }
        return best < 0 ? OptionalInt.empty() : OptionalInt.of(best);
    }
}
