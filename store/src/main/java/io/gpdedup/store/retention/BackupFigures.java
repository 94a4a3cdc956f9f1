package io.gpdedup.store.retention;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpdedup.client.StoreClient;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.StoredChunk;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A backup and the chunks it brought to the store: those no older backup of the list (nor an
 * earlier file of its own) references. Read from the recipes, so the figures hold for the backups
 * still there, whatever was deleted before.
 *
 * @param newBytes uncompressed bytes of those chunks
 * @param storedBytes their bytes as stored (compressed), or -1 when not asked for
 */
public record BackupFigures(BackupSet backup, long newBytes, long storedBytes) {
    /** Uncompressed bytes fetched at once when sizing stored chunks. */
    private static final long FETCH_BYTES = 32L << 20;

    /**
     * {@code backups} oldest first, as {@link BackupSet#of} gives them. With {@code stored}, also
     * fetches every new chunk once to add up its stored size: as long as reading the unit's data.
     */
    public static List<BackupFigures> of(StoreClient client, List<BackupSet> backups, boolean stored) {
        Set<Fingerprint> seen = new HashSet<>();
        List<BackupFigures> out = new ArrayList<>();
        for (BackupSet b : backups) {
            long fresh = 0;
            List<ChunkRef> brought = new ArrayList<>();
            for (ObjectInfo o : b.objects()) {
                Optional<Recipe> r = client.recipe(o.name());
                if (r.isEmpty()) {
                    continue; // deleted since the listing
                }
                for (ChunkRef ref : r.get().chunks()) {
                    if (seen.add(ref.fingerprint())) {
                        fresh += ref.length();
                        if (stored) {
                            brought.add(ref);
                        }
                    }
                }
            }
            out.add(new BackupFigures(b, fresh, stored ? storedBytes(client, brought) : -1));
        }
        return out;
    }

    private static long storedBytes(StoreClient client, List<ChunkRef> chunks) {
        long total = 0;
        List<Fingerprint> batch = new ArrayList<>();
        long batchBytes = 0;
        for (int i = 0; i <= chunks.size(); i++) {
            if (i == chunks.size() || (!batch.isEmpty() && batchBytes + chunks.get(i).length() > FETCH_BYTES)) {
                for (StoredChunk c : client.chunks(batch.toArray(new Fingerprint[0])).join()) {
                    total += c.payload().length;
                }
                batch.clear();
                batchBytes = 0;
            }
            if (i < chunks.size()) {
                batch.add(chunks.get(i).fingerprint());
                batchBytes += chunks.get(i).length();
            }
        }
        return total;
    }

    public void toJson(ObjectNode n) {
        n.put("directory", backup.directory());
        n.put("timestamp", backup.timestamp());
        n.put("files", backup.objects().size());
        n.put("logical_bytes", backup.logicalBytes());
        n.put("new_bytes", newBytes);
        if (storedBytes >= 0) {
            n.put("stored_bytes", storedBytes);
        }
        if (newBytes == 0) {
            n.putNull("dedup_ratio");
        } else {
            n.put("dedup_ratio", (double) backup.logicalBytes() / newBytes);
        }
        n.put("finished_at", Instant.ofEpochMilli(backup.finishedAtMillis()).toString());
    }
}
