package io.gpdedup.store.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpdedup.store.Fingerprint;
import io.gpdedup.store.client.StoreClient;
import io.gpdedup.store.engine.ChunkRef;
import io.gpdedup.store.engine.ObjectInfo;
import io.gpdedup.store.engine.Recipe;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A backup and the uncompressed bytes of the chunks it brought to the store: those no older backup
 * of the list (nor an earlier file of its own) references. Read from the recipes, so the figures
 * hold for the backups still there, whatever was deleted before.
 */
record BackupFigures(BackupSet backup, long newBytes) {

    /** {@code backups} oldest first, as {@link BackupSet#of} gives them. */
    static List<BackupFigures> of(StoreClient client, List<BackupSet> backups) {
        Set<Fingerprint> seen = new HashSet<>();
        List<BackupFigures> out = new ArrayList<>();
        for (BackupSet b : backups) {
            long fresh = 0;
            for (ObjectInfo o : b.objects()) {
                Optional<Recipe> r = client.recipe(o.name());
                if (r.isEmpty()) {
                    continue; // deleted since the listing
                }
                for (ChunkRef ref : r.get().chunks()) {
                    if (seen.add(ref.fingerprint())) {
                        fresh += ref.length();
                    }
                }
            }
            out.add(new BackupFigures(b, fresh));
        }
        return out;
    }

    void toJson(ObjectNode n) {
        n.put("directory", backup.directory());
        n.put("timestamp", backup.timestamp());
        n.put("files", backup.objects().size());
        n.put("logical_bytes", backup.logicalBytes());
        n.put("new_bytes", newBytes);
        if (newBytes == 0) {
            n.putNull("dedup_ratio");
        } else {
            n.put("dedup_ratio", (double) backup.logicalBytes() / newBytes);
        }
        n.put("finished_at", Instant.ofEpochMilli(backup.finishedAtMillis()).toString());
    }
}
