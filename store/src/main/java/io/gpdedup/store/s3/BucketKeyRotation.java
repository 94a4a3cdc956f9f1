package io.gpdedup.store.s3;

import io.gpdedup.store.crypt.DataKeys;
import io.gpdedup.store.crypt.Kek;
import io.gpdedup.store.crypt.KeyException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * rotate-key for bucket units: the keys object of each encrypted unit re-wrapped from one
 * key-encryption key to the next, as {@link io.gpdedup.store.crypt.KeyRotation} does for disk
 * units, without touching containers. The run holds each unit's lease, so no store writes the
 * unit meanwhile; each PUT replaces a keys object whole. First every unit's keys get the new
 * wrapping beside the old, then the old wrappings go: at every moment each unit opens with the new
 * key or with both, and a run cut off anywhere is finished by running it again. In a bucket with
 * Object Lock (so versioned) the earlier versions of each keys object are deleted at the end.
 */
public final class BucketKeyRotation {
    private BucketKeyRotation() {
    }

    /** Re-wraps the data keys of each encrypted unit of {@code units} in the bucket; the units it re-wrapped. */
    public static List<String> rotate(S3Settings s3, Path dataDir, Collection<String> units, Kek current, Kek next) throws IOException {
        try (Bucket bucket = Bucket.open(s3)) {
            StoreIdentity me = StoreIdentity.of(dataDir);
            boolean conditional = bucket.conditionalWrites();
            Map<String, UnitLease> leases = new LinkedHashMap<>();
            try {
                List<String> names = new ArrayList<>();
                List<DataKeys> opened = new ArrayList<>();
                // Opening every unit first: a key that opens none of one unit stops the run before any object changes.
                for (String unit : new TreeSet<>(units)) {
                    UnitLease lease = UnitLease.acquire(bucket, unit, me, s3.leaseSeconds(), conditional);
                    leases.put(unit, lease);
                    UnitKeys unitKeys = new UnitKeys(unit);
                    if (bucket.list(unitKeys.containers()).stream().anyMatch(o -> o.key().equals(BucketConversion.stateKey(unitKeys)))) {
                        // Its staged data keys are wrapped by the current key only: re-wrapping the keys object alone would strand them.
                        throw new KeyException(BucketConversion.unfinished(unit));
                    }
                    String key = unitKeys.keys();
                    Optional<byte[]> text = bucket.get(key);
                    if (text.isEmpty()) {
                        continue;
                    }
                    String where = "the keys object " + key;
                    DataKeys k;
                    try {
                        k = DataKeys.open(text.get(), where, unit, next);
                    } catch (KeyException notYet) {
                        k = DataKeys.open(text.get(), where, unit, current);
                    }
                    names.add(unit);
                    opened.add(k);
                }
                for (int i = 0; i < names.size(); i++) {
                    if (opened.get(i).addWrapping(next)) {
                        write(bucket, leases, names.get(i), opened.get(i));
                    }
                }
                for (int i = 0; i < names.size(); i++) {
                    if (opened.get(i).keepOnly(next)) {
                        write(bucket, leases, names.get(i), opened.get(i));
                    }
                    if (bucket.locks().enabled()) {
                        bucket.locks().deleteOlderVersions(new UnitKeys(names.get(i)).keys());
                    }
                }
                return names;
            } finally {
                for (UnitLease l : leases.values()) {
                    l.release();
                }
            }
        }
    }

    private static void write(Bucket bucket, Map<String, UnitLease> leases, String unit, DataKeys keys) throws IOException {
        leases.get(unit).checkWritable();
        bucket.put(new UnitKeys(unit).keys(), keys.text());
    }
}
