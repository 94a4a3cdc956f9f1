package io.gpdedup.store.protocol;

import io.gpdedup.store.Fingerprint;
import io.gpdedup.store.engine.ChunkRef;
import io.gpdedup.store.engine.GcReport;
import io.gpdedup.store.engine.ObjectInfo;
import io.gpdedup.store.engine.StoredChunk;
import io.gpdedup.store.engine.UnitStats;
import io.gpdedup.store.engine.VerifyReport;
import java.util.List;

/** Messages the server sends (docs/protocol.md section 4). */
public sealed interface Reply extends Message {

    record Ok() implements Reply {
        @Override
        public MessageType type() {
            return MessageType.OK;
        }
    }

    record HelloOk(int version, int maxFrameLength, int maxBatch) implements Reply {
        @Override
        public MessageType type() {
            return MessageType.HELLO_OK;
        }
    }

    record AuthOk() implements Reply {
        @Override
        public MessageType type() {
            return MessageType.AUTH_OK;
        }
    }

    record LeaseGranted(long lease) implements Reply {
        @Override
        public MessageType type() {
            return MessageType.LEASE;
        }
    }

    /** {@code missing[i]} answers the i-th fingerprint asked. */
    record MissingBitmap(boolean[] missing) implements Reply {
        @Override
        public MessageType type() {
            return MessageType.MISSING_BITMAP;
        }
    }

    /**
     * One part of a recipe; every part repeats the total length and stream hash, and from version 4
     * on the chunk list SHA-256 the backup recorded ({@code null} when there is none or before version 4).
     */
    record RecipePart(long totalLength, byte[] streamSha256, List<ChunkRef> refs, byte[] chunkListSha256) implements Reply {
        public RecipePart {
            if (streamSha256.length != Fingerprint.LENGTH || chunkListSha256 != null && chunkListSha256.length != Fingerprint.LENGTH) {
                throw new IllegalArgumentException("a SHA-256 is " + Fingerprint.LENGTH + " bytes");
            }
            refs = List.copyOf(refs);
        }

        public RecipePart(long totalLength, byte[] streamSha256, List<ChunkRef> refs) {
            this(totalLength, streamSha256, refs, null);
        }

        @Override
        public MessageType type() {
            return MessageType.RECIPE;
        }
    }

    record NotFound() implements Reply {
        @Override
        public MessageType type() {
            return MessageType.NOT_FOUND;
        }
    }

    record ChunksPart(List<StoredChunk> chunks) implements Reply {
        public ChunksPart {
            chunks = List.copyOf(chunks);
        }

        @Override
        public MessageType type() {
            return MessageType.CHUNKS;
        }
    }

    record ObjectsPart(List<ObjectInfo> objects) implements Reply {
        public ObjectsPart {
            objects = List.copyOf(objects);
        }

        @Override
        public MessageType type() {
            return MessageType.OBJECTS;
        }
    }

    record Count(long count) implements Reply {
        @Override
        public MessageType type() {
            return MessageType.COUNT;
        }
    }

    record Stats(UnitStats stats) implements Reply {
        @Override
        public MessageType type() {
            return MessageType.STATS_REPLY;
        }
    }

    record VerifyResult(VerifyReport report) implements Reply {
        @Override
        public MessageType type() {
            return MessageType.VERIFY_REPLY;
        }
    }

    /** @param idleTimeoutSeconds how long a connection may stay silent with nothing in flight before the server closes it */
    record Settings(long idleTimeoutSeconds) implements Reply {
        public Settings {
            if (idleTimeoutSeconds < 0 || idleTimeoutSeconds > 0xffffffffL) {
                throw new IllegalArgumentException("idle timeout " + idleTimeoutSeconds + " s is not a u32");
            }
        }

        @Override
        public MessageType type() {
            return MessageType.SETTINGS_REPLY;
        }
    }

    record GcResult(GcReport report) implements Reply {
        @Override
        public MessageType type() {
            return MessageType.GC_REPLY;
        }
    }

    /** A replication job was queued (or an identical one was still waiting): its id. */
    record ReplicationQueued(long jobId) implements Reply {
        @Override
        public MessageType type() {
            return MessageType.REPLICATION_QUEUED;
        }
    }

    record ReplicationJobsPart(List<ReplicationJobStatus> jobs) implements Reply {
        public ReplicationJobsPart {
            jobs = List.copyOf(jobs);
        }

        @Override
        public MessageType type() {
            return MessageType.REPLICATION_JOBS;
        }
    }

    record Error(ErrorCode code, String message) implements Reply {
        /** Longer messages are cut: a wire string holds at most 65535 bytes. */
        public static final int MAX_MESSAGE_CHARS = 8192;

        public Error {
            if (message.length() > MAX_MESSAGE_CHARS) {
                message = message.substring(0, MAX_MESSAGE_CHARS) + "...";
            }
        }

        @Override
        public MessageType type() {
            return MessageType.ERROR;
        }
    }
}
