package io.gpdedup.store.crypt;

import io.gpdedup.store.container.ChunkRecord;
import io.gpdedup.store.container.Container;
import io.gpdedup.store.container.OwnerOnly;
import io.gpdedup.store.container.RecordFormat;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.logging.Logger;

/**
 * How one unit directory's files are written: plaintext, or sealed under the unit's data keys.
 * A unit with a keys file is encrypted and needs the key; a new (empty) unit is made encrypted
 * when the store has a key; an existing plaintext unit stays plaintext until
 * {@code gpdedup-store encrypt-unit} converts it.
 *
 * @param records the containers' record format
 * @param blobs what seals the index snapshot and the recipe files; null for plaintext
 */
public record UnitEncryption(RecordFormat records, BlobSeal blobs) {
    private static final Logger LOG = Logger.getLogger(UnitEncryption.class.getName());
    public static final UnitEncryption PLAIN = new UnitEncryption(RecordFormat.PLAIN, null);

    /** Whether the unit's files are sealed. */
    public boolean encrypted() {
        return blobs != null;
    }

    /** The unit's data keys opened with {@code kek}: its records and blobs sealed under them. */
    public static UnitEncryption of(DataKeys keys) {
        return new UnitEncryption(keys.records(), keys.blobs());
    }

    /**
     * Decides how unit {@code unit} in {@code unitDir} is written, before anything in it is
     * touched: {@link KeyException} when the unit is encrypted and {@code kek} (null: no key
     * configured) does not open it, or when a conversion of it was interrupted.
     */
    public static UnitEncryption open(Path unitDir, String unit, Kek kek) throws IOException {
        if (UnitConversion.interrupted(unitDir)) {
            throw new KeyException("unit " + unit + ": a conversion to encrypted did not finish; run gpdedup-store encrypt-unit "
                    + unit + " again");
        }
        if (DataKeys.present(unitDir)) {
            if (holds(unitDir, ChunkRecordMagic.PLAIN)) {
                // Scanned as sealed, its plaintext records would look like a torn tail and be cut off.
                throw new KeyException("unit " + unit + " has a keys file but plaintext containers (restored from a plaintext copy?):"
                        + " not opened, so that nothing is cut off; move the keys file away to open it as plaintext");
            }
            if (kek == null) {
                throw new KeyException("unit " + unit + " is encrypted, but the config has no encryption key"
                        + " (set encryption.key-file or encryption.key-command)");
            }
            return of(DataKeys.open(unitDir, unit, kek));
        }
        if (holds(unitDir, ChunkRecordMagic.SEALED)) {
            // Scanned as plaintext, its sealed records would look like a torn tail and be cut off.
            throw new KeyException("unit " + unit + " holds encrypted containers but its keys file " + unitDir.resolve(DataKeys.FILE)
                    + " is missing: not opened, so that nothing is cut off; put the keys file back");
        }
        if (kek == null) {
            return PLAIN;
        }
        if (isEmpty(unitDir)) {
            OwnerOnly.createDirectories(unitDir);
            return of(DataKeys.create(unitDir, unit, kek));
        }
        LOG.warning(() -> "unit " + unit + " is not encrypted: what it holds, and what is written to it, stays plaintext"
                + " until gpdedup-store encrypt-unit converts it");
        return PLAIN;
    }

    /** The record magics a container's first record may start with. */
    private enum ChunkRecordMagic {
        PLAIN(ChunkRecord.MAGIC), SEALED(SealedRecords.MAGIC);

        final int value;

        ChunkRecordMagic(int value) {
            this.value = value;
        }
    }

    /** Whether the first record of some container of the unit starts with {@code magic}. */
    private static boolean holds(Path unitDir, ChunkRecordMagic magic) throws IOException {
        Path dir = unitDir.resolve("containers");
        if (!Files.isDirectory(dir)) {
            return false;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.ctr")) {
            for (Path p : ds) {
                byte[] head = new byte[Container.HEADER_BYTES + 4];
                int n;
                try (InputStream in = Files.newInputStream(p)) {
                    n = in.readNBytes(head, 0, head.length);
                }
                if (startsWith(head, n, magic)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Whether the first {@code n} bytes of a container, {@code head}, show a sealed first record
     * (true), a plaintext one (false) or neither (null: no record yet, or not a container).
     */
    public static Boolean sealedHead(byte[] head, int n) {
        return startsWith(head, n, ChunkRecordMagic.SEALED) ? Boolean.TRUE : startsWith(head, n, ChunkRecordMagic.PLAIN) ? Boolean.FALSE : null;
    }

    /** Bytes of a container's start that {@link #sealedHead} needs. */
    public static int headBytes() {
        return Container.HEADER_BYTES + 4;
    }

    private static boolean startsWith(byte[] head, int n, ChunkRecordMagic magic) {
        if (n < Container.V1_HEADER_BYTES + 4) {
            return false;
        }
        ByteBuffer b = ByteBuffer.wrap(head);
        int start = b.getInt(8) == 1 ? Container.V1_HEADER_BYTES : Container.HEADER_BYTES; // the header's version field
        return n >= start + 4 && b.getInt(start) == magic.value;
    }

    /** No containers and no recipes yet: nothing plaintext that the unit would have to keep reading. */
    static boolean isEmpty(Path unitDir) throws IOException {
        for (String sub : new String[] {"containers", "recipes"}) {
            Path d = unitDir.resolve(sub);
            if (!Files.isDirectory(d)) {
                continue;
            }
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(d)) {
                for (Path p : ds) {
                    if (!p.getFileName().toString().endsWith(".tmp")) {
                        return false;
                    }
                }
            }
        }
        return true;
    }
}
