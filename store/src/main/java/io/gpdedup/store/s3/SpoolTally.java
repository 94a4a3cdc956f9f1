package io.gpdedup.store.s3;

import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.store.container.Container;
import io.gpdedup.store.container.ContainerScanner;
import io.gpdedup.store.container.RecordFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;

/**
 * What was appended to one spool container, kept as it is written so that its upload needs no
 * second pass over the file: the MD5 of every byte (sent as the Content-MD5 the server checks the
 * upload against) and the records for its index object. Filled under the container's append lock;
 * read by its upload once it is sealed.
 */
final class SpoolTally {
    private final MessageDigest md5 = Bucket.newMd5();
    private final List<ContainerIndexFile.Entry> entries = new ArrayList<>();
    private byte[] digest;

    /** Starts with the container's header, as written at its creation. */
    SpoolTally(byte[] header) {
        md5.update(header);
    }

    /** The record just appended at {@code offset}: the bytes between {@code record}'s position and limit (consumed). */
    void add(ByteBuffer record, Fingerprint fingerprint, long offset, int length) {
        md5.update(record);
        entries.add(new ContainerIndexFile.Entry(fingerprint, offset, length));
    }

    /** The MD5 of everything added; the container takes no more appends from the first call on. */
    synchronized byte[] md5() {
        if (digest == null) {
            digest = md5.digest();
        }
        return digest.clone();
    }

    /** The records and MD5 of a container written by garbage collection, which appends to it directly (records of {@code format}). */
    static SpoolTally readBack(Container c, RecordFormat format) throws IOException {
        List<ContainerIndexFile.Entry> records = new ArrayList<>();
        ContainerScanner.ScanResult r = ContainerScanner.scan(c, c.dataStart(), format,
                (fp, offset, length) -> records.add(new ContainerIndexFile.Entry(fp, offset, length)));
        if (r.damagedBytes() > 0 || r.truncatedBytes() > 0) {
            throw new IOException("spool file " + c.path() + " is damaged (" + (r.damagedBytes() + r.truncatedBytes())
                    + " bytes): check the cache disk");
        }
        SpoolTally tally = new SpoolTally(c.read(0, Math.toIntExact(c.dataStart())));
        for (ContainerIndexFile.Entry e : records) {
            tally.add(ByteBuffer.wrap(c.read(e.offset(), e.length())), e.fingerprint(), e.offset(), e.length());
        }
        return tally;
    }

    List<ContainerIndexFile.Entry> entries() {
        return entries;
    }
}
