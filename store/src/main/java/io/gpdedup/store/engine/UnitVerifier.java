package io.gpdedup.store.engine;

import io.gpdedup.protocol.codec.ChunkCodec;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.codec.CorruptChunkException;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.report.VerifyReport;
import io.gpdedup.store.container.ChunkRecord;
import io.gpdedup.store.container.Container;
import io.gpdedup.store.recipe.CorruptRecipeException;
import io.gpdedup.store.recipe.RecipeCatalog;
import io.gpdedup.store.recipe.RecipeFile;
import java.io.IOException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Checks a unit end to end without trusting anything in memory but the index: every container
 * header is re-read; every indexed record is re-read, its CRC checked, its payload decoded and
 * re-hashed; then every recipe is re-read and replayed, its chunk list against its SHA-256, each
 * chunk's length and, where the backup recorded one, the whole stream's SHA-256 compared. The
 * objects that cannot be restored byte for byte are named; the report's problems say why.
 */
final class UnitVerifier {
    private record Entry(int container, long offset, int slot) {
    }

    private final DedupStorageUnit unit;
    private final List<String> problems = new ArrayList<>();
    private final Set<Fingerprint> bad = new HashSet<>();
    private long chunksChecked;
    private long bytesChecked;

    UnitVerifier(DedupStorageUnit unit) {
        this.unit = unit;
    }

    VerifyReport run() {
        problems.addAll(unit.recoveryProblems());
        checkHeaders();
        checkChunks();
        List<String> damaged = new ArrayList<>();
        long objects = 0;
        for (RecipeCatalog.Entry e : unit.catalog().all()) {
            objects++;
            String why = checkObject(e);
            if (why != null) {
                damaged.add(e.name());
                problems.add("object " + e.name() + ": " + why);
            }
        }
        return new VerifyReport(chunksChecked, bytesChecked, objects, damaged, problems);
    }

    /** A damaged header costs no chunk (records do not need it) but is reported: the disk under it may be failing. */
    private void checkHeaders() {
        for (ContainerStore.Info c : unit.containers().all()) {
            String problem;
            try {
                problem = unit.containers().headerProblem(c.id());
            } catch (ContainerStore.GoneException e) {
                continue; // removed by garbage collection meanwhile
            } catch (IOException e) {
                problem = "header cannot be read: " + e.getMessage();
            }
            if (problem != null) {
                problems.add("container " + Container.fileName(c.id()) + ": " + problem);
            }
        }
    }

    private void checkChunks() {
        List<Entry> entries = new ArrayList<>();
        unit.index().forEach((slot, container, offset, length) -> entries.add(new Entry(container, offset, slot)));
        // Container order, then offset order: one sequential pass over each file.
        entries.sort((a, b) -> a.container() != b.container() ? Integer.compare(a.container(), b.container())
                : Long.compare(a.offset(), b.offset()));
        List<Fingerprint> fps = new ArrayList<>(entries.size());
        for (Entry e : entries) {
            fps.add(unit.index().fingerprintAt(e.slot()));
        }
        for (Fingerprint fp : fps) {
            chunksChecked++;
            try {
                ChunkRecord r = unit.readRecord(fp);
                bytesChecked += r.payload().length;
                ChunkDecoder.decodeAndCheck(fp, Codec.ofId(r.codecId()), r.rawLength(), r.payload());
            } catch (StoreException | IllegalArgumentException e) {
                if (unit.index().contains(fp)) {
                    bad.add(fp);
                    problems.add("chunk " + fp + ": " + e.getMessage());
                }
            }
        }
    }

    /** Null when the object restores byte for byte, else why not. */
    private String checkObject(RecipeCatalog.Entry e) {
        if (e.damaged()) {
            return "its recipe file " + e.fileName() + " is damaged";
        }
        Optional<RecipeFile.Contents> rc;
        try {
            rc = unit.catalog().read(e);
        } catch (CorruptRecipeException ex) {
            return "its recipe file " + e.fileName() + " is damaged: " + ex.getMessage();
        } catch (IOException ex) {
            return "its recipe file " + e.fileName() + " cannot be read: " + ex;
        }
        if (rc.isEmpty()) {
            return null; // deleted while verifying
        }
        Recipe recipe = rc.get().recipe();
        if (recipe.chunkListSha256() != null && !recipe.chunkListMatches()) {
            return "its chunk list does not match the SHA-256 recorded at backup";
        }
        // Without a stream SHA-256 the chunk list digest (checked above) and the chunks' own check prove the stream.
        MessageDigest md = recipe.streamSha256() == null ? null : Fingerprint.newDigest();
        int i = 0;
        for (ChunkRef ref : recipe.chunks()) {
            Fingerprint fp = ref.fingerprint();
            if (bad.contains(fp)) {
                return "chunk " + i + " (" + fp + ") is damaged";
            }
            byte[] raw;
            try {
                ChunkRecord r = unit.readRecord(fp);
                Codec codec = Codec.ofId(r.codecId());
                // Without a stream hash each chunk is checked against its fingerprint here: it may
                // have been written after the record pass above.
                raw = md != null ? ChunkCodec.decode(codec, r.rawLength(), r.payload(), r.payload().length)
                        : ChunkDecoder.decodeAndCheck(fp, codec, r.rawLength(), r.payload());
            } catch (StoreException | CorruptChunkException | IllegalArgumentException ex) {
                return "chunk " + i + " (" + fp + "): " + ex.getMessage();
            }
            if (raw.length != ref.length()) {
                return "chunk " + i + " (" + fp + ") has " + raw.length + " bytes, the recipe says " + ref.length();
            }
            if (md != null) {
                md.update(raw);
            }
            i++;
        }
        if (md != null && !Arrays.equals(md.digest(), recipe.streamSha256())) {
            return "the chunks do not hash to the stream SHA-256";
        }
        return null;
    }
}
