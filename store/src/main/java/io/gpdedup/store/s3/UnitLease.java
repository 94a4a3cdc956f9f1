package io.gpdedup.store.s3;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The claim of one store on one storage unit: the object {@code units/<unit>/lease} in the bucket,
 * naming the holder, written again every sixth of the lease time (docs/s3.md, leases), each
 * renewal's requests bounded in time so that a slow one leaves room for the next.
 *
 * <p>A lease is live while the server's clock says it was written less than {@code lease-seconds}
 * ago (its Last-Modified against the Date of the reply that read it: one clock, so no skew between
 * stores matters). A store refuses a unit whose lease is live and held by another store (a standby
 * reads it again every sixth of the lease time: {@code StandbyUnits}), and takes over one that
 * lapsed. Where the server honours conditional writes the take-over is a PUT with If-Match (or
 * If-None-Match when there is no lease), so of two stores racing only one succeeds.
 * Elsewhere (S3Proxy 2.6) a store writes its lease, waits {@link #SETTLE_MILLIS} and reads it back:
 * whoever wrote last wins, and a store that took longer than half that between reading the old
 * lease and writing its own gives up, so a slow writer cannot overwrite a winner after it looked.
 *
 * <p>The holder stops writing to the unit (uploads, recipes, deletions) once two thirds of the
 * lease time passed since the last renewal it started, by its own clock, and gives each write a
 * total time limit ({@link #writeLimit}) that ends before another store may take over; a commit is
 * acknowledged only once {@link #confirmHeld} passed for its recipe (docs/s3.md, fencing). Writes
 * resume when a renewal succeeds. A holder whose lease lapsed takes it again as a newcomer would,
 * and one that finds another store's lease has lost the unit for good.
 */
final class UnitLease {
    private static final Logger LOG = Logger.getLogger(UnitLease.class.getName());
    /**
     * JVM property that sets {@link #SETTLE_MILLIS} (default 2000): the module tests, which take
     * leases on S3Proxy many times and never race two stores for one, set it lower.
     */
    static final String SETTLE_PROPERTY = "gpdedup.s3.lease-settle-millis";
    static final long SETTLE_MILLIS = Long.getLong(SETTLE_PROPERTY, 2000);
    private static final JsonFactory JSON = new JsonFactory();

    /** The lease object's content. */
    record Holder(String store, String host, long pid, String token, int leaseSeconds, long renewal) {
    }

    private final Bucket bucket;
    private final String unit;
    private final String key;
    private final StoreIdentity me;
    private final int leaseSeconds;
    private final boolean conditional;
    private final String token = UUID.randomUUID().toString();
    private volatile long renewedAtNanos;
    private volatile String etag;
    private volatile String lostTo;
    /** Counts takes: a write begun under one take is not covered by a later one, which may follow another store's tenure. */
    private volatile long takes;
    private long renewals; // guarded by this

    private UnitLease(Bucket bucket, String unit, StoreIdentity me, int leaseSeconds, boolean conditional) {
        this.bucket = bucket.quick();
        this.unit = unit;
        this.key = new UnitKeys(unit).lease();
        this.me = me;
        this.leaseSeconds = leaseSeconds;
        this.conditional = conditional;
    }

    /** Takes the unit's lease, or fails with {@link LeaseHeldException} naming the store that holds it. */
    static UnitLease acquire(Bucket bucket, String unit, StoreIdentity me, int leaseSeconds, boolean conditional) throws IOException {
        UnitLease lease = new UnitLease(bucket, unit, me, leaseSeconds, conditional);
        lease.take();
        return lease;
    }

    private synchronized void take() throws IOException {
        Optional<Bucket.Fetched> current = bucket.fetch(key);
        if (current.isPresent()) {
            Holder h = parse(current.get().bytes());
            long age = Math.max(0, Duration.between(current.get().lastModified(), current.get().serverNow()).getSeconds());
            int ttl = h != null && h.leaseSeconds() > 0 ? h.leaseSeconds() : leaseSeconds;
            boolean ours = h != null && h.store().equals(me.id());
            if (!ours && age < ttl) {
                throw held(h, age, ttl);
            }
        }
        byte[] mine = encode();
        // The lease runs from its write, which other stores date by the server's clock; ours counts from before we sent it.
        long written = System.nanoTime();
        if (conditional) {
            try {
                etag = current.isPresent() ? bucket.putIfMatch(key, mine, current.get().etag()) : bucket.putIfAbsent(key, mine);
            } catch (BucketException e) {
                if (e.kind() == BucketException.Kind.CONFLICT) {
                    throw held(bucket.fetch(key).map(f -> parse(f.bytes())).orElse(null), 0, leaseSeconds);
                }
                throw e;
            }
        } else {
            bucket.put(key, mine);
            if (System.nanoTime() - written > TimeUnit.MILLISECONDS.toNanos(SETTLE_MILLIS / 2)) {
                throw new BucketException(BucketException.Kind.FAILED, "storage unit " + unit + ": writing its lease took longer than "
                        + SETTLE_MILLIS / 2 + " ms, too long to be sure no other store took it meanwhile; try again", null);
            }
            sleep(SETTLE_MILLIS);
            Optional<Bucket.Fetched> back = bucket.fetch(key);
            Holder h = back.map(f -> parse(f.bytes())).orElse(null);
            if (h == null || !token.equals(h.token())) {
                throw held(h, 0, leaseSeconds);
            }
            etag = back.get().etag();
        }
        renewedAtNanos = written;
        takes++;
        lostTo = null;
    }

    /** Writes the lease again; called every third of the lease time. Never throws: what failed is logged. */
    void renew() {
        if (lostTo != null) {
            return;
        }
        try {
            if (System.nanoTime() - renewedAtNanos >= TimeUnit.SECONDS.toNanos(leaseSeconds)) {
                take(); // lapsed: another store may have taken it meanwhile
                LOG.info(() -> "storage unit " + unit + ": lease taken again after it lapsed");
                return;
            }
            synchronized (this) {
                long written;
                if (conditional) {
                    written = System.nanoTime();
                    etag = bucket.putIfMatch(key, encode(), etag);
                } else {
                    Optional<Bucket.Fetched> current = bucket.fetch(key);
                    Holder h = current.map(f -> parse(f.bytes())).orElse(null);
                    if (h == null || !token.equals(h.token())) {
                        throw held(h, 0, leaseSeconds);
                    }
                    written = System.nanoTime();
                    etag = bucket.put(key, encode());
                }
                renewedAtNanos = written;
            }
        } catch (LeaseHeldException e) {
            lost(e.getMessage());
        } catch (BucketException e) {
            if (e.kind() == BucketException.Kind.CONFLICT) {
                Holder h;
                try {
                    h = bucket.fetch(key).map(f -> parse(f.bytes())).orElse(null);
                } catch (IOException again) {
                    h = null;
                }
                lost(heldBy(h, 0, leaseSeconds));
            } else {
                long left = TimeUnit.NANOSECONDS.toSeconds(renewedAtNanos + writeWindowNanos() - System.nanoTime());
                LOG.warning(() -> "storage unit " + unit + ": cannot renew its lease: " + e.getMessage()
                        + (left > 0 ? "; writes stop in " + left + " s unless a renewal succeeds" : "; writes are stopped until a renewal succeeds"));
            }
        } catch (IOException e) {
            LOG.warning(() -> "storage unit " + unit + ": cannot renew its lease: " + e.getMessage());
        }
    }

    private void lost(String why) {
        lostTo = why;
        LOG.severe(() -> "storage unit " + unit + " was taken over: " + why + "; this store no longer writes to it (restart it without the unit)");
    }

    private long writeWindowNanos() {
        return TimeUnit.SECONDS.toNanos(leaseSeconds) * 2 / 3;
    }

    /**
     * How long before another store could take the unit over we stop trusting the lease: the
     * server dates a lease to the second, so a taker may count up to a second too much, and the
     * two clocks may run at slightly different rates.
     */
    private long marginNanos() {
        return TimeUnit.SECONDS.toNanos(Math.max(2, leaseSeconds / 6));
    }

    /** The instant, by this process's clock, until which no other store can have taken the unit over. */
    private long heldUntilNanos() {
        return renewedAtNanos + TimeUnit.SECONDS.toNanos(leaseSeconds) - marginNanos();
    }

    /** What {@link #confirmHeld} compares with: read before a write is sent. */
    long takes() {
        return takes;
    }

    /**
     * Throws unless the lease was still this store's when a write that began after {@code takes()}
     * returned {@code takesBefore} completed (called at its completion): no other store can have
     * taken the unit over and listed it before that write landed. A commit is acknowledged only
     * after this passed for its recipe.
     */
    void confirmHeld(long takesBefore, String what) throws BucketException {
        checkNotLost();
        long late = System.nanoTime() - heldUntilNanos();
        if (takes != takesBefore || late >= 0) {
            throw new BucketException(BucketException.Kind.FAILED, "storage unit " + unit + ": " + what + " was written when this store's lease"
                    + " could have lapsed (last renewed " + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - renewedAtNanos)
                    + " s before), so another store may have taken the unit over without it; not acknowledged: run it again", null);
        }
    }

    /**
     * The time a write to the unit beginning now may take in all: until another store could take
     * the unit over. Throws as {@link #checkWritable()} does when it may not begin at all.
     */
    Duration writeLimit() throws BucketException {
        checkWritable();
        long left = heldUntilNanos() - System.nanoTime();
        if (left <= 0) {
            throw new BucketException(BucketException.Kind.FAILED, "storage unit " + unit + ": its lease in the bucket was last renewed "
                    + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - renewedAtNanos) + " s ago (is the bucket reachable?);"
                    + " writes resume once it is renewed", null);
        }
        return Duration.ofNanos(left);
    }

    /** Throws unless this store may write to the unit now (before every upload, recipe and deletion). */
    void checkWritable() throws BucketException {
        checkNotLost();
        long age = System.nanoTime() - renewedAtNanos;
        if (age > writeWindowNanos()) {
            throw new BucketException(BucketException.Kind.FAILED, "storage unit " + unit + ": its lease in the bucket was last renewed "
                    + TimeUnit.NANOSECONDS.toSeconds(age) + " s ago (is the bucket reachable?); writes resume once it is renewed", null);
        }
    }

    private void checkNotLost() throws BucketException {
        String lost = lostTo;
        if (lost != null) {
            throw new BucketException(BucketException.Kind.CONFLICT, "storage unit " + unit + " is no longer this store's: " + lost, null);
        }
    }

    /** Gives the unit back (a clean stop): deletes the lease if it is still this store's. */
    synchronized void release() {
        if (lostTo != null) {
            return;
        }
        try {
            Optional<Bucket.Fetched> current = bucket.fetch(key);
            Holder h = current.map(f -> parse(f.bytes())).orElse(null);
            if (h != null && token.equals(h.token())) {
                bucket.delete(key);
            }
        } catch (IOException e) {
            LOG.warning(() -> "storage unit " + unit + ": cannot give its lease back (" + e.getMessage()
                    + "); another store can take the unit once it lapses, after " + leaseSeconds + " s");
        }
        lostTo = "this store gave it back";
    }

    /** A small JSON object, readable with any S3 tool: {@code {"store":..,"host":..,"pid":..,"token":..,"leaseSeconds":..,"renewal":..}}. */
    private synchronized byte[] encode() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("store", me.id());
            g.writeStringField("host", me.host());
            g.writeNumberField("pid", me.pid());
            g.writeStringField("token", token);
            g.writeNumberField("leaseSeconds", leaseSeconds);
            g.writeNumberField("renewal", renewals++);
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** The holder a lease object names, or {@code null} when it is not one of ours. */
    private static Holder parse(byte[] b) {
        Map<String, String> fields = new HashMap<>();
        try (JsonParser p = JSON.createParser(b)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                p.nextToken();
                fields.put(name, p.getValueAsString());
            }
            String store = fields.get("store");
            String tok = fields.get("token");
            if (store == null || tok == null) {
                return null;
            }
            return new Holder(store, fields.getOrDefault("host", "?"), Long.parseLong(fields.getOrDefault("pid", "0")), tok,
                    Integer.parseInt(fields.getOrDefault("leaseSeconds", "0")), Long.parseLong(fields.getOrDefault("renewal", "0")));
        } catch (IOException | NumberFormatException e) {
            return null;
        }
    }

    private String heldBy(Holder h, long ageSeconds, int ttl) {
        return "storage unit " + unit + " is served by " + who(h) + (ageSeconds > 0 ? "; its lease was renewed " + ageSeconds + " s ago" : "")
                + " and lapses " + ttl + " s after its last renewal: stop that store first, or wait (docs/s3.md, moving a unit)";
    }

    /** The unit is another store's: a standby looks again as often as a holder renews. */
    private LeaseHeldException held(Holder h, long ageSeconds, int ttl) {
        return new LeaseHeldException(heldBy(h, ageSeconds, ttl), who(h), Duration.ofSeconds(Math.max(1, leaseSeconds / 6)));
    }

    private static String who(Holder h) {
        return h == null ? "another store" : "the store on host " + h.host() + " (pid " + h.pid() + ", store id " + h.store() + ")";
    }

    private static void sleep(long ms) throws BucketException {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BucketException(BucketException.Kind.FAILED, "interrupted while taking a lease", e);
        }
    }

    /** For tests and status: when the lease was last written, per the server, if it exists. */
    Optional<Instant> lastWritten() throws IOException {
        return bucket.fetch(key).map(Bucket.Fetched::lastModified);
    }
}
