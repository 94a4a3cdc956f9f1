package io.gpdedup.store.protocol;

import io.gpdedup.store.Fingerprint;
import io.gpdedup.store.engine.ChunkRef;
import java.util.List;

/** Messages a client sends (docs/protocol.md section 4). */
public sealed interface Request extends Message {

    record Hello(List<Integer> versions) implements Request {
        public Hello {
            versions = List.copyOf(versions);
            if (versions.isEmpty() || versions.size() > 16) {
                throw new IllegalArgumentException("HELLO lists 1..16 versions, not " + versions.size());
            }
        }

        @Override
        public MessageType type() {
            return MessageType.HELLO;
        }
    }

    record Auth(String unit, String user, String password) implements Request {
        @Override
        public MessageType type() {
            return MessageType.AUTH;
        }

        /** Never shows the password: messages end up in logs. */
        @Override
        public String toString() {
            return "Auth[unit=" + unit + ", user=" + user + "]";
        }
    }

    record BeginBackup() implements Request {
        @Override
        public MessageType type() {
            return MessageType.BEGIN_BACKUP;
        }
    }

    record Missing(long lease, List<Fingerprint> fingerprints) implements Request {
        public Missing {
            fingerprints = List.copyOf(fingerprints);
        }

        @Override
        public MessageType type() {
            return MessageType.MISSING;
        }
    }

    record PutChunks(long lease, List<ChunkUpload> chunks) implements Request {
        public PutChunks {
            chunks = List.copyOf(chunks);
        }

        @Override
        public MessageType type() {
            return MessageType.PUT_CHUNKS;
        }
    }

    record AppendRecipe(long lease, List<ChunkRef> refs) implements Request {
        public AppendRecipe {
            refs = List.copyOf(refs);
        }

        @Override
        public MessageType type() {
            return MessageType.APPEND_RECIPE;
        }
    }

    /**
     * The last part of a recipe (earlier parts came in APPEND_RECIPE) and the commit itself; the
     * chunk list SHA-256 is sent from version 4 on, {@code null} before.
     */
    record Commit(long lease, String objectName, long totalLength, byte[] streamSha256, List<ChunkRef> refs, byte[] chunkListSha256)
            implements Request {
        public Commit {
            if (streamSha256.length != Fingerprint.LENGTH || chunkListSha256 != null && chunkListSha256.length != Fingerprint.LENGTH) {
                throw new IllegalArgumentException("a SHA-256 is " + Fingerprint.LENGTH + " bytes");
            }
            refs = List.copyOf(refs);
        }

        public Commit(long lease, String objectName, long totalLength, byte[] streamSha256, List<ChunkRef> refs) {
            this(lease, objectName, totalLength, streamSha256, refs, null);
        }

        @Override
        public MessageType type() {
            return MessageType.COMMIT;
        }
    }

    record Abort(long lease) implements Request {
        @Override
        public MessageType type() {
            return MessageType.ABORT;
        }
    }

    record GetRecipe(String objectName) implements Request {
        @Override
        public MessageType type() {
            return MessageType.GET_RECIPE;
        }
    }

    record GetChunks(List<Fingerprint> fingerprints) implements Request {
        public GetChunks {
            fingerprints = List.copyOf(fingerprints);
        }

        @Override
        public MessageType type() {
            return MessageType.GET_CHUNKS;
        }
    }

    record ListObjects(String prefix) implements Request {
        @Override
        public MessageType type() {
            return MessageType.LIST;
        }
    }

    record DeleteObjects(String prefix) implements Request {
        @Override
        public MessageType type() {
            return MessageType.DELETE;
        }
    }

    /** Deletes exactly one object, by its full name (a prefix delete would also hit its longer namesakes). */
    record DeleteObject(String objectName) implements Request {
        @Override
        public MessageType type() {
            return MessageType.DELETE_OBJECT;
        }
    }

    record GetStats() implements Request {
        @Override
        public MessageType type() {
            return MessageType.STATS;
        }
    }

    record Verify() implements Request {
        @Override
        public MessageType type() {
            return MessageType.VERIFY;
        }
    }

    record CollectGarbage() implements Request {
        @Override
        public MessageType type() {
            return MessageType.GC;
        }
    }

    /**
     * Queues a background copy of every object under {@code sourcePrefix} (in the connection's
     * unit) to {@code target}; the store logs in there with {@code password}.
     */
    record Replicate(String sourcePrefix, ReplicaTarget target, String password) implements Request {
        @Override
        public MessageType type() {
            return MessageType.REPLICATE;
        }

        /** Never shows the password: messages end up in logs. */
        @Override
        public String toString() {
            return "Replicate[source=" + sourcePrefix + ", target=" + target + "]";
        }
    }

    /** The replication jobs of the connection's unit. */
    record ReplicationStatus() implements Request {
        @Override
        public MessageType type() {
            return MessageType.REPLICATION_STATUS;
        }
    }

    record Ping() implements Request {
        @Override
        public MessageType type() {
            return MessageType.PING;
        }
    }

    /** Durability of every chunk the unit holds now (version 3). */
    record Sync() implements Request {
        @Override
        public MessageType type() {
            return MessageType.SYNC;
        }
    }

    /** The server's settings a client adapts to (version 3). */
    record GetSettings() implements Request {
        @Override
        public MessageType type() {
            return MessageType.SETTINGS;
        }
    }
}
