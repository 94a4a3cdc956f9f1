package io.gpdedup.appliance;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.store.engine.BackupLease;
import io.gpdedup.store.engine.CommitPolicy;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * One backup stream through the appliance: a write flow from begin to close. What it pays:
 * <ul>
 * <li>a dedup stream (it asks MISSING): the client's work and an index lookup for every logical
 *     byte, then the wire for the bytes it sends (as sent, compressed). Duplicates cost only their
 *     client work and lookup, charged when MISSING reports them present, at the appliance's mean
 *     chunk size (MISSING carries no lengths), and set right at commit, when the recipe tells how
 *     many bytes they were;</li>
 * <li>a raw stream (it puts without asking): only the wire;</li>
 * <li>both: a file close (latency and namespace) before the commit, and the round trip of the
 *     commit's synchronous reply.</li>
 * </ul>
 * The file create was paid by {@link ThrottledUnit#beginBackup} before this lease existed.
 */
final class ThrottledBackupLease implements BackupLease {
    private final BackupLease lease;
    private final Appliance appliance;
    private final FlowScheduler.Flow flow;
    /** Uncompressed bytes put: the stream's unique data. Calls on one lease come one at a time. */
    private long putRawBytes;
    /** Duplicate bytes already charged, estimated when MISSING reported them present. */
    private long chargedDuplicates;
    private boolean closed;

    ThrottledBackupLease(BackupLease lease, Appliance appliance) {
        this.lease = lease;
        this.appliance = appliance;
        this.flow = appliance.scheduler.join(FlowScheduler.Kind.WRITE);
    }

    @Override
    public boolean[] missing(Fingerprint[] fingerprints) {
        classify(FlowScheduler.Client.DEDUP);
        boolean[] missing = lease.missing(fingerprints);
        int present = 0;
        for (boolean m : missing) {
            present += m ? 0 : 1;
        }
        if (present > 0) {
            long estimate = Math.round(present * appliance.meanChunkBytes());
            appliance.move(flow, 0, 0, appliance.dedupSeconds(estimate));
            chargedDuplicates += estimate;
        }
        return missing;
    }

    @Override
    public void put(Fingerprint fingerprint, Codec codec, int rawLength, ByteBuffer payload) {
        FlowScheduler.Client client = classify(FlowScheduler.Client.RAW);
        double work = client == FlowScheduler.Client.DEDUP ? appliance.dedupSeconds(rawLength) : 0;
        appliance.move(flow, payload.remaining(), rawLength, work);
        lease.put(fingerprint, codec, rawLength, payload);
        putRawBytes += rawLength;
    }

    @Override
    public CompletableFuture<Void> commit(String objectName, Recipe recipe, CommitPolicy policy) {
        appliance.scheduler.label(flow, objectName);
        if (flow.client == FlowScheduler.Client.DEDUP) {
            long duplicates = recipe.totalLength() - putRawBytes - chargedDuplicates;
            if (duplicates > 0) {
                appliance.move(flow, 0, 0, appliance.dedupSeconds(duplicates));
            }
        }
        appliance.sawRecipe(recipe);
        appliance.closeFile();
        appliance.requestRoundTrip();
        return lease.commit(objectName, recipe, policy);
    }

    /**
     * Fixes the stream's client kind at its first request, and the pool it belongs to: the client
     * library sizes its pool by the streams its session opened, here every write stream of the same
     * kind open now (a channel test's threads; the plugin calls of a backup's hosts, which the
     * store cannot tell apart) and those not yet classified, which start together with it.
     */
    private FlowScheduler.Client classify(FlowScheduler.Client kind) {
        if (flow.client == FlowScheduler.Client.UNKNOWN) {
            appliance.scheduler.update(flow, f -> {
                f.client = kind;
                int pool = 0;
                for (FlowScheduler.Flow o : appliance.scheduler.flows()) {
                    boolean same = o.client == kind || o.client == FlowScheduler.Client.UNKNOWN;
                    pool += o.kind == FlowScheduler.Kind.WRITE && same ? 1 : 0;
                }
                f.poolStreams = Math.max(1, pool);
                f.clientSecondsPerByte = kind == FlowScheduler.Client.DEDUP ? appliance.clientSecondsPerByte() : 0;
            });
        }
        return flow.client;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            appliance.scheduler.leave(flow);
        }
        lease.close();
    }
}
