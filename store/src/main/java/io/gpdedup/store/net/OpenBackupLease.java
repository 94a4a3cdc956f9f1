package io.gpdedup.store.net;

import io.gpdedup.protocol.model.ChunkList;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.store.engine.BackupLease;
import java.util.List;

/** A lease as the server holds it: the engine's lease and the recipe refs appended so far. */
final class OpenBackupLease {
    final long id;
    final BackupLease lease;
    private final ChunkList.Builder refs = new ChunkList.Builder();

    OpenBackupLease(long id, BackupLease lease) {
        this.id = id;
        this.lease = lease;
    }

    void append(List<ChunkRef> more) {
        if ((long) refs.size() + more.size() > Recipe.MAX_CHUNKS) {
            throw new BadRequestException("a recipe has at most " + Recipe.MAX_CHUNKS + " chunk refs");
        }
        refs.addAll(more);
    }

    /** The appended refs followed by {@code last}. */
    List<ChunkRef> refsWith(List<ChunkRef> last) {
        append(last);
        return refs.build();
    }
}
