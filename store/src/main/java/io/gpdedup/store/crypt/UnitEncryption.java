package io.gpdedup.store.crypt;

import io.gpdedup.store.container.RecordFormat;
import java.io.IOException;
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
            if (kek == null) {
                throw new KeyException("unit " + unit + " is encrypted, but the config has no encryption key"
                        + " (set encryption.key-file or encryption.key-command)");
            }
            return of(DataKeys.open(unitDir, unit, kek));
        }
        if (kek == null) {
            return PLAIN;
        }
        if (isEmpty(unitDir)) {
            Files.createDirectories(unitDir);
            return of(DataKeys.create(unitDir, unit, kek));
        }
        LOG.warning(() -> "unit " + unit + " is not encrypted: what it holds, and what is written to it, stays plaintext"
                + " until gpdedup-store encrypt-unit converts it");
        return PLAIN;
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
