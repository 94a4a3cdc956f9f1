package io.gpdedup.store.crypt;

import io.gpdedup.store.container.FileSync;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.crypto.SecretKey;

/**
 * A unit's data keys, kept in its {@code keys} file wrapped by one or more key-encryption keys
 * (docs/format.md section 9.1). The newest data key encrypts what the unit writes; every one
 * decrypts what was written under it. A key may be wrapped by several key-encryption keys at once:
 * that is how a rotation moves a unit from one to the next without a moment where neither opens it.
 */
public final class DataKeys {
    public static final String FILE = "keys";
    static final String HEADER = "gpdedup-unit-keys v1";

    /** One wrapping of one data key. */
    private record Wrap(int keyId, String kekId, byte[] sealed) {
    }

    private final String unit;
    private final List<Wrap> wraps;
    private final Map<Integer, SecretKey> keys;

    private DataKeys(String unit, List<Wrap> wraps, Map<Integer, SecretKey> keys) {
        this.unit = unit;
        this.wraps = wraps;
        this.keys = keys;
    }

    /** Whether {@code unitDir} holds a keys file: then the unit is encrypted. */
    public static boolean present(Path unitDir) {
        return Files.exists(unitDir.resolve(FILE));
    }

    /** Makes a unit's first data key, wrapped by {@code kek}, and writes the keys file durably. */
    public static DataKeys create(Path unitDir, String unit, Kek kek) throws IOException {
        return create(unitDir.resolve(FILE), unitDir, unit, kek);
    }

    /** As {@link #create(Path, String, Kek)}, into {@code file} (a conversion renames it into place when it is done). */
    static DataKeys create(Path file, Path unitDir, String unit, Kek kek) throws IOException {
        DataKeys k = create(unit, kek);
        k.write(file);
        return k;
    }

    /** Makes a unit's first data key, wrapped by {@code kek}, kept by the caller as {@link #text()} (a bucket unit's keys object). */
    public static DataKeys create(String unit, Kek kek) {
        byte[] raw = Gcm.randomBytes(Gcm.KEY_BYTES);
        List<Wrap> wraps = new ArrayList<>();
        wraps.add(wrap(unit, 1, raw, kek));
        Map<Integer, SecretKey> keys = new TreeMap<>();
        keys.put(1, Gcm.key(raw));
        return new DataKeys(unit, wraps, keys);
    }

    /**
     * Reads a unit's keys file and unwraps its data keys with {@code kek}; {@link KeyException}
     * when {@code kek} wraps none of them or the file is damaged.
     */
    public static DataKeys open(Path unitDir, String unit, Kek kek) throws IOException {
        Path file = unitDir.resolve(FILE);
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new KeyException("unit " + unit + ": its keys file " + file + " is missing");
        }
        return open(lines, file.toString(), unit, kek);
    }

    /** As {@link #open(Path, String, Kek)}, from the {@link #text()} kept at {@code where} (a bucket unit's keys object). */
    public static DataKeys open(byte[] text, String where, String unit, Kek kek) throws KeyException {
        return open(new String(text, StandardCharsets.UTF_8).lines().toList(), where, unit, kek);
    }

    private static DataKeys open(List<String> lines, String where, String unit, Kek kek) throws KeyException {
        List<Wrap> wraps = parse(lines, where, unit);
        Map<Integer, SecretKey> keys = new TreeMap<>();
        List<String> kekIds = new ArrayList<>();
        for (Wrap w : wraps) {
            if (!kekIds.contains(w.kekId())) {
                kekIds.add(w.kekId());
            }
            if (!w.kekId().equals(kek.id()) || keys.containsKey(w.keyId())) {
                continue;
            }
            byte[] raw = unwrap(unit, w, kek);
            if (raw == null) {
                throw new KeyException("unit " + unit + ": data key " + w.keyId() + " in " + where
                        + " does not decrypt under key " + kek.id() + " (the file is damaged)");
            }
            keys.put(w.keyId(), Gcm.key(raw));
        }
        if (keys.isEmpty()) {
            throw new KeyException("unit " + unit + " is encrypted under key " + String.join(" or ", kekIds)
                    + ", not under the configured key " + kek.id() + ": wrong key");
        }
        for (Wrap w : wraps) {
            if (!keys.containsKey(w.keyId())) {
                throw new KeyException("unit " + unit + ": data key " + w.keyId() + " is not wrapped by the configured key " + kek.id());
            }
        }
        return new DataKeys(unit, wraps, keys);
    }

    /** The id of the data key new writes use: the newest. */
    int currentId() {
        return ((TreeMap<Integer, SecretKey>) keys).lastKey();
    }

    /** The data key of {@code id}; null when the unit has none of that id. */
    SecretKey key(int id) {
        return keys.get(id);
    }

    String unit() {
        return unit;
    }

    /** The ids of the key-encryption keys this unit's data keys are wrapped by. */
    public List<String> kekIds() {
        List<String> out = new ArrayList<>();
        for (Wrap w : wraps) {
            if (!out.contains(w.kekId())) {
                out.add(w.kekId());
            }
        }
        return out;
    }

    /** Adds a wrapping of every data key by {@code kek} (if missing) and writes the file durably. */
    public void addWrapping(Path unitDir, Kek kek) throws IOException {
        if (addWrapping(kek)) {
            write(unitDir.resolve(FILE));
        }
    }

    /** Adds a wrapping of every data key by {@code kek} in memory; whether it was missing (then {@link #text()} changed). */
    public boolean addWrapping(Kek kek) {
        if (kekIds().contains(kek.id())) {
            return false;
        }
        for (Map.Entry<Integer, SecretKey> e : keys.entrySet()) {
            wraps.add(wrap(unit, e.getKey(), e.getValue().getEncoded(), kek));
        }
        return true;
    }

    /** Drops every wrapping but {@code kek}'s and writes the file durably; {@code kek} must wrap every key. */
    public void keepOnly(Path unitDir, Kek kek) throws IOException {
        if (keepOnly(kek)) {
            write(unitDir.resolve(FILE));
        }
    }

    /** As {@link #keepOnly(Path, Kek)}, in memory; whether a wrapping was dropped (then {@link #text()} changed). */
    public boolean keepOnly(Kek kek) {
        if (kekIds().size() == 1 && kekIds().get(0).equals(kek.id())) {
            return false;
        }
        long kept = wraps.stream().filter(w -> w.kekId().equals(kek.id())).count();
        if (kept != keys.size()) {
            throw new IllegalStateException("unit " + unit + ": not every data key is wrapped by key " + kek.id());
        }
        wraps.removeIf(w -> !w.kekId().equals(kek.id()));
        return true;
    }

    /** What a record or blob sealed under this unit's keys looks like: the unit's records and blobs. */
    public SealedRecords records() {
        return new SealedRecords(this);
    }

    public BlobSeal blobs() {
        return new BlobSeal(this);
    }

    private static Wrap wrap(String unit, int keyId, byte[] raw, Kek kek) {
        byte[] nonce = Gcm.randomBytes(Gcm.NONCE_BYTES);
        byte[] ct = Gcm.seal(kek.secret(), nonce, aad(unit, keyId, kek.id()), raw, 0, raw.length);
        byte[] sealed = new byte[nonce.length + ct.length];
        System.arraycopy(nonce, 0, sealed, 0, nonce.length);
        System.arraycopy(ct, 0, sealed, nonce.length, ct.length);
        return new Wrap(keyId, kek.id(), sealed);
    }

    private static byte[] unwrap(String unit, Wrap w, Kek kek) {
        if (w.sealed().length != Gcm.NONCE_BYTES + Gcm.KEY_BYTES + Gcm.TAG_BYTES) {
            return null;
        }
        byte[] nonce = java.util.Arrays.copyOf(w.sealed(), Gcm.NONCE_BYTES);
        return Gcm.open(kek.secret(), nonce, aad(unit, w.keyId(), kek.id()), w.sealed(), Gcm.NONCE_BYTES,
                w.sealed().length - Gcm.NONCE_BYTES);
    }

    /** Binds a wrapped key to its unit and id: a key file copied to another unit, or a line moved, does not open. */
    private static byte[] aad(String unit, int keyId, String kekId) {
        return ("gpdedup data key\0" + unit + "\0" + keyId + "\0" + kekId).getBytes(StandardCharsets.UTF_8);
    }

    private static List<Wrap> parse(List<String> lines, String where, String unit) throws KeyException {
        String bad = "unit " + unit + ": " + where + " is not a keys file (damaged?)";
        if (lines.size() < 3 || !lines.get(0).equals(HEADER) || !lines.get(1).equals("unit " + unit)) {
            throw new KeyException(bad);
        }
        List<Wrap> wraps = new ArrayList<>();
        Map<String, Boolean> seen = new LinkedHashMap<>();
        for (String line : lines.subList(2, lines.size())) {
            String[] f = line.split(" ");
            try {
                if (f.length != 4 || !f[0].equals("key") || seen.put(f[1] + " " + f[2], true) != null) {
                    throw new IllegalArgumentException();
                }
                int id = Integer.parseInt(f[1]);
                if (id < 1) {
                    throw new IllegalArgumentException();
                }
                wraps.add(new Wrap(id, f[2], Base64.getDecoder().decode(f[3])));
            } catch (IllegalArgumentException e) {
                throw new KeyException(bad);
            }
        }
        return wraps;
    }

    /** Temp, fsync, rename, fsync the directory: the old file or the new one, never a part. */
    private void write(Path file) throws IOException {
        Path temp = file.resolveSibling(file.getFileName() + ".tmp");
        FileSync.writeAndSync(temp, text());
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        FileSync.syncDirectory(file.getParent());
    }

    /** The keys file's contents (docs/format.md section 9.1): wrapped keys only, nothing that opens without a key-encryption key. */
    public byte[] text() {
        StringBuilder sb = new StringBuilder(HEADER).append('\n').append("unit ").append(unit).append('\n');
        for (Wrap w : wraps) {
            sb.append("key ").append(w.keyId()).append(' ').append(w.kekId()).append(' ')
                    .append(Base64.getEncoder().encodeToString(w.sealed())).append('\n');
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }
}
