package io.gpdedup.store.engine;

import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.RetentionLock;
import io.gpdedup.store.container.ChunkRecord;
import io.gpdedup.store.container.Container;
import io.gpdedup.store.container.RecordFormat;
import io.gpdedup.store.index.ChunkIndex;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;

/**
 * Where a unit's chunk records are kept: container files in a directory ({@link LocalContainers}),
 * or container objects in a bucket written through a local spool ({@code io.gpdedup.store.s3}).
 * Records are always appended to local {@link Container} files first; what makes them durable is
 * the store's business (an fsync, or an upload).
 *
 * <p>Appends, seals, copies and removals are serialized by the unit's write lock; reads and
 * {@link #makeDurable()} may run on any thread at any time.
 */
public interface ContainerStore extends Closeable {
    /** Where an appended record went. */
    record Placement(int container, long offset) {
    }

    /** One container: its id, its length, and where its records start. */
    record Info(int id, long size, long dataStart) {
    }

    /** The container was removed (by garbage collection) while being read: look the chunk up again. */
    final class GoneException extends IOException {
        private static final long serialVersionUID = 1L;

        public GoneException(int id) {
            super("container " + id + " was removed");
        }
    }

    /**
     * Builds the index of what is stored, at open (problems found are added to {@code problems}).
     * A store killed at any moment must come back with every record that was durable.
     */
    ChunkIndex recoverIndex(List<String> problems) throws IOException;

    /**
     * Appends a chunk record, rolling over to a new container when the current one is full. Refused
     * with nothing written past the unit's capacity or into the disk reserve.
     */
    Placement append(ChunkRecord record) throws IOException;

    /**
     * As {@link #append(ChunkRecord)}, for a chunk whose payload is between {@code payload}'s
     * position and limit (a view of a received frame); a store that can, encodes it from there
     * without copying it into an array first.
     */
    default Placement append(Fingerprint fingerprint, int codecId, int rawLength, ByteBuffer payload) throws IOException {
        byte[] copy = new byte[payload.remaining()];
        payload.duplicate().get(copy);
        return append(new ChunkRecord(fingerprint, codecId, rawLength, copy));
    }

    /**
     * The record of a chunk encoded now, outside the unit's lock, when encoding costs enough to be
     * worth it (sealing); valid on this thread until its next call. Null: {@link #append} encodes
     * it, copying the payload straight from the frame.
     */
    default ByteBuffer encodeAhead(Fingerprint fingerprint, int codecId, int rawLength, ByteBuffer payload) {
        return null;
    }

    /** Appends a record that {@link #encodeAhead} returned (between its position and limit), as {@link #append(ChunkRecord)} does. */
    default Placement appendEncoded(ByteBuffer record) throws IOException {
        throw new UnsupportedOperationException("this store encodes records at append");
    }

    /** How this store's records are laid out: what a reader decodes the bytes of {@link #read} with. */
    default RecordFormat format() {
        return RecordFormat.PLAIN;
    }

    /** {@code length} bytes at {@code offset} of container {@code id}; {@link GoneException} if it is no more. */
    byte[] read(int id, long offset, int length) throws IOException;

    /**
     * As {@link #read(int, long, int)}, into {@code into} from its position to its limit: a store
     * that can reads straight into it (a buffer kept from read to read) instead of a new array.
     */
    default void read(int id, long offset, ByteBuffer into) throws IOException {
        into.put(read(id, offset, into.remaining()));
    }

    /** Makes every record appended before the call durable; what a commit waits for. */
    void makeDurable() throws IOException;

    /**
     * What a backup's SYNC waits for: the records appended before the call outlive a lost
     * connection, and a restart of the store where the store can promise that cheaply. By default
     * as durable as a commit.
     */
    default void keepForReconnect() throws IOException {
        makeDurable();
    }

    /** Whether {@link #keepForReconnect} leaves records in a spool that dies with this host. */
    default boolean reconnectKeepsSpoolOnly() {
        return false;
    }

    /** Stops appending to the current container: the next append starts a new one. */
    void seal();

    /** Every container, by id. */
    List<Info> all();

    int count();

    /** Bytes in every container. */
    long totalBytes();

    /** What is wrong with a container's header, read again now; {@code null}: nothing. */
    String headerProblem(int id) throws IOException;

    /** A new container for garbage collection's copies (not the one taking appends). */
    Container createForCopies() throws IOException;

    /** Makes garbage collection's copies durable before the index points at them. */
    void syncCopies(List<Container> written) throws IOException;

    /**
     * Removes containers for good (their records are dead or copied and durable elsewhere). Returns
     * those its storage still holds under a retention lock (a bucket's Object Lock): they stay, in
     * {@link #all()}, for a later removal.
     */
    List<Integer> remove(List<Integer> ids) throws IOException;

    /**
     * Whether this store keeps locks of its own on its containers ({@link #retain}); when not,
     * a locked commit has nothing to extend and its containers need not be looked up.
     */
    default boolean holdsLocks() {
        return false;
    }

    /**
     * Keeps the containers at least as long as {@code lock}, before a commit of an object locked so
     * is acknowledged: a store that locks its containers (a bucket with Object Lock) extends those
     * that would end earlier. Called under the unit's write lock.
     */
    default void retain(Set<Integer> ids, RetentionLock lock) throws IOException {
    }

    /** Whether a container is held under a retention lock at {@code nowMillis}, so that it cannot be removed yet. */
    default boolean retainedAt(int id, long nowMillis) throws IOException {
        return false;
    }

    /** Bytes that garbage collection may still write locally. */
    long usableSpace() throws IOException;

    /**
     * Saves the index so that the next open need not rebuild it, after making what it covers
     * durable. Called under the unit's write lock. A cache only: failing to save it fails nothing.
     */
    void saveIndex(ChunkIndex index, String unitName);

    /** Forgets the saved index before garbage collection moves or removes records. */
    void dropIndex() throws IOException;

    /** Whether the saved index has fallen far enough behind to be worth saving again now. */
    default boolean indexWorthSaving() {
        return false;
    }
}
