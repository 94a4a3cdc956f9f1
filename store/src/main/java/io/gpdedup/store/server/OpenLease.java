package io.gpdedup.store.server;

import io.gpdedup.store.chunk.ChunkList;
import io.gpdedup.store.chunk.ChunkRef;
import io.gpdedup.store.engine.BackupLease;
import java.util.List;

/** A lease as the server holds it: the engine's lease and the recipe refs appended so far. */
final class OpenLease {
    /** At most this many refs per object (a 4 TiB object at 256 KiB per chunk). */
    static final int MAX_REFS = 1 << 24;

    final long id;
    final BackupLease lease;
    private final ChunkList.Builder refs = new ChunkList.Builder();

    OpenLease(long id, BackupLease lease) {
        this.id = id;
        this.lease = lease;
    }

    void append(List<ChunkRef> more) {
        if ((long) refs.size() + more.size() > MAX_REFS) {
            throw new BadRequestException("a recipe has at most " + MAX_REFS + " chunk refs");
        }
        refs.addAll(more);
    }

    /** The appended refs followed by {@code last}. */
    List<ChunkRef> refsWith(List<ChunkRef> last) {
        append(last);
        return refs.build();
    }
}
