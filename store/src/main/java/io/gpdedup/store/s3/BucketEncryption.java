package io.gpdedup.store.s3;

import io.gpdedup.store.crypt.DataKeys;
import io.gpdedup.store.crypt.Kek;
import io.gpdedup.store.crypt.KeyException;
import io.gpdedup.store.crypt.UnitEncryption;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * How a bucket unit's objects are written: plaintext, or sealed under the data keys kept wrapped
 * in its keys object {@code units/<unit>/keys} (the keys file of a disk unit, docs/format.md
 * section 9.1). Decided under the unit's lease, before anything of the unit is read: a unit with a
 * keys object needs the key; a new (empty) unit is made encrypted when the store has a key; an
 * existing plaintext unit stays plaintext until encrypt-unit converts it ({@link BucketConversion}),
 * and one whose conversion did not finish is refused. A PUT replaces an object whole, so the keys object is
 * always the old one or the new one, never a part.
 */
final class BucketEncryption {
    private static final Logger LOG = Logger.getLogger(BucketEncryption.class.getName());

    private BucketEncryption() {
    }

    /** Decides how unit {@code unit} is written; {@link KeyException} when {@code kek} (null: no key) does not open it. */
    static UnitEncryption open(Bucket bucket, String unit, Kek kek, UnitLease lease) throws IOException {
        UnitKeys keys = new UnitKeys(unit);
        // A listing under the state object's own name: one request, where a listing of all the
        // containers would be tens in a large unit.
        if (!bucket.listPage(BucketConversion.stateKey(keys), null).objects().isEmpty()) {
            throw new KeyException(BucketConversion.unfinished(unit));
        }
        Optional<byte[]> text = bucket.get(keys.keys());
        Boolean sealed = firstContainerSealed(bucket, keys);
        if (text.isPresent()) {
            if (Boolean.FALSE.equals(sealed)) {
                throw new KeyException("unit " + unit + " has a keys object but plaintext containers in the bucket (restored from a plaintext"
                        + " copy?): not opened, so that nothing is cut off; move the keys object " + keys.keys() + " away to open it as plaintext");
            }
            if (kek == null) {
                throw new KeyException("unit " + unit + " is encrypted, but the config has no encryption key"
                        + " (set encryption.key-file or encryption.key-command)");
            }
            return UnitEncryption.of(DataKeys.open(text.get(), "the keys object " + keys.keys(), unit, kek));
        }
        if (Boolean.TRUE.equals(sealed)) {
            throw new KeyException("unit " + unit + " holds encrypted containers but its keys object " + keys.keys()
                    + " is missing from the bucket: not opened, so that nothing is cut off; put the keys object back");
        }
        if (kek == null) {
            return UnitEncryption.PLAIN;
        }
        if (sealed == null && bucket.listPage(keys.recipes(), null).objects().isEmpty()) {
            DataKeys k = DataKeys.create(unit, kek);
            lease.checkWritable();
            bucket.put(keys.keys(), k.text()); // before the unit's first object: nothing plaintext is ever written to it
            return UnitEncryption.of(k);
        }
        LOG.warning(() -> "unit " + unit + " is not encrypted: what it holds in the bucket, and what is written to it, stays plaintext"
                + " until gpdedup-store encrypt-unit converts it");
        return UnitEncryption.PLAIN;
    }

    /**
     * Whether the first of the unit's {@code containers} (as listed) holding a record holds sealed
     * records (one ranged GET); null when none holds a record.
     */
    static Boolean firstContainerSealed(Bucket bucket, List<Bucket.Listed> containers) throws IOException {
        for (Bucket.Listed o : containers) {
            Boolean sealed = sealedHead(bucket, o);
            if (sealed != null) {
                return sealed;
            }
        }
        return null;
    }

    /**
     * As {@link #firstContainerSealed(Bucket, List)}, listing page by page only as far as that first
     * container: a whole listing of a large unit is tens of requests, which the start makes once,
     * elsewhere.
     */
    private static Boolean firstContainerSealed(Bucket bucket, UnitKeys keys) throws IOException {
        String token = null;
        do {
            Bucket.Page page = bucket.listPage(keys.containers(), token);
            for (Bucket.Listed o : page.objects()) {
                Boolean sealed = sealedHead(bucket, o);
                if (sealed != null) {
                    return sealed;
                }
            }
            token = page.next();
        } while (token != null);
        return null;
    }

    /** Whether container {@code o} holds sealed records; null when it is no container or holds none. */
    private static Boolean sealedHead(Bucket bucket, Bucket.Listed o) throws IOException {
        if (!o.key().endsWith(UnitKeys.CONTAINER_SUFFIX)) {
            return null;
        }
        int n = (int) Math.min(o.size(), UnitEncryption.headBytes());
        return n <= 0 ? null : UnitEncryption.sealedHead(bucket.getRange(o.key(), 0, n), n);
    }
}
