package io.gpdedup.protocol.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.RetentionLock;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.protocol.report.GcReport;
import io.gpdedup.protocol.report.UnitStats;
import io.gpdedup.protocol.report.VerifyReport;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The bytes of every form of every message, in every protocol version, against {@code golden-frames.txt}:
 * a line per form, named by the first version that sends it (a form goes on the wire the same way on
 * every later version; which forms a connection may send is the store's and client's version capping).
 * Each line also holds a digest of what the decoder makes of that frame cut short at every length,
 * with a byte appended, and with each byte set to each of a few values: the same frames accepted, the
 * same ones refused with the same message. The file was printed by {@link #main}: run it only to add
 * the lines of a new form, and check that no other line changes.
 */
class GoldenFramesTest {
    private static final String RESOURCE = "golden-frames.txt";
    private static final byte[] MUTATIONS = {0x00, 0x01, (byte) 0x80, (byte) 0xFF};

    record Form(int version, String label, Frame frame) {
        String name() {
            return "v" + version + " " + frame.type() + (label.isEmpty() ? "" : " " + label);
        }
    }

    static List<Form> forms() {
        List<Form> out = new ArrayList<>();
        List<Fingerprint> fps = List.of(fp(1), fp(2), fp(0xfe));
        List<ChunkRef> refs = List.of(new ChunkRef(fp(3), 65536), new ChunkRef(fp(4), 1));
        byte[] stream = sha(0x5a);
        byte[] chunkList = sha(0xc3);
        String name = "db/backups/20261128/20261128120000/ü€😀/gpbackup_0_20261128120000_16384.gz";
        List<ObjectInfo> objects = List.of(new ObjectInfo(name, 12345, 1_764_331_200_000L), new ObjectInfo("", 0, 0),
                new ObjectInfo("b", 1, 2, new RetentionLock(RetentionLock.Mode.COMPLIANCE, 1_800_000_000_000L)),
                new ObjectInfo("c", 3, 4, new RetentionLock(RetentionLock.Mode.GOVERNANCE, 1_900_000_000_000L)));
        List<ObjectInfo> unlocked = objects.stream().map(o -> new ObjectInfo(o.name(), o.length(), o.committedAtMillis())).toList();
        ReplicaTarget target = new ReplicaTarget("dr-store.example", 7411, "unit-ü", "replicator", "dr/");
        long lease = 0x0102030405060708L;

        add(out, 1, "", new Request.Hello(List.of(1, 2, 3, 4, 5, 6, 7)));
        add(out, 1, "one version", new Request.Hello(List.of(1)));
        add(out, 1, "", new Request.Auth("unit-1", "user", "päss wörd"));
        add(out, 1, "", new Request.BeginBackup());
        add(out, 1, "", new Request.Missing(lease, fps));
        add(out, 1, "empty", new Request.Missing(lease, List.of()));
        add(out, 1, "", new Request.PutChunks(lease, List.of(new ChunkUpload(fp(1), Codec.NONE, 3, new byte[] {1, 2, 3}),
                new ChunkUpload(fp(2), Codec.ZSTD, 70000, new byte[] {9, 8, 7, 6, 5}),
                new ChunkUpload(fp(0xfe), Codec.LZ4, 0, new byte[0]))));
        add(out, 1, "empty", new Request.PutChunks(lease, List.of()));
        add(out, 1, "", new Request.AppendRecipe(lease, refs));
        add(out, 1, "", new Request.Commit(lease, name, 0x7fff_ffff_ffffL, stream, refs));
        add(out, 1, "", new Request.Abort(lease));
        add(out, 1, "", new Request.GetRecipe(name));
        add(out, 1, "", new Request.GetChunks(fps));
        add(out, 1, "all", new Request.ListObjects(""));
        add(out, 1, "", new Request.ListObjects("db/backups/"));
        add(out, 1, "", new Request.DeleteObjects("db/backups/2026"));
        add(out, 1, "", new Request.GetStats());
        add(out, 1, "", new Request.Verify());
        add(out, 1, "", new Request.CollectGarbage());
        add(out, 1, "", new Request.Ping());
        add(out, 1, "", new Request.DeleteObject(name));
        add(out, 1, "", new Reply.Ok());
        add(out, 1, "", new Reply.HelloOk(1, FrameCodec.DEFAULT_MAX_FRAME, 65536));
        add(out, 1, "", new Reply.AuthOk());
        add(out, 1, "", new Reply.LeaseGranted(lease));
        add(out, 1, "", new Reply.MissingBitmap(new boolean[] {true, false, false, true, false, false, false, false, false, true}));
        add(out, 1, "whole bytes", new Reply.MissingBitmap(new boolean[] {false, true, true, true, true, true, true, true}));
        add(out, 1, "empty", new Reply.MissingBitmap(new boolean[0]));
        add(out, 1, "", new Reply.RecipePart(0x7fff_ffff_ffffL, stream, refs));
        add(out, 1, "", new Reply.NotFound());
        add(out, 1, "", new Reply.ChunksPart(List.of(new StoredChunk(Codec.ZSTD, 70000, new byte[] {9, 8, 7, 6, 5}),
                new StoredChunk(Codec.NONE, 0, new byte[0]))));
        add(out, 1, "", new Reply.ObjectsPart(unlocked));
        add(out, 1, "", new Reply.Count(17));
        add(out, 1, "", new Reply.Stats(new UnitStats(1, 2, 3, 4, 5, Long.MAX_VALUE)));
        add(out, 1, "", new Reply.VerifyResult(new VerifyReport(7, 8, 9, List.of("a", name), List.of("problem ü"))));
        add(out, 1, "", new Reply.GcResult(new GcReport(10, 11, 12, 13)));
        add(out, 1, "", new Reply.Error(ErrorCode.STORE_ERROR, "something failed: ü"));
        add(out, 1, "throttled", new Reply.Error(ErrorCode.THROTTLED, "too many logins"));
        out.add(new Form(1, "more", new Frame(0x7fffffff, true, new Reply.ChunksPart(List.of(new StoredChunk(Codec.LZ4, 1, new byte[] {1}))))));
        out.add(new Form(1, "more", new Frame(-1, true, new Reply.ObjectsPart(unlocked))));
        out.add(new Form(1, "more", new Frame(0, true, new Reply.RecipePart(1, stream, refs))));

        add(out, 2, "", new Request.Replicate("db/backups/", target, "päss wörd"));
        add(out, 2, "", new Request.ReplicationStatus());
        add(out, 2, "", new Reply.ReplicationQueued(lease));
        add(out, 2, "", new Reply.ReplicationJobsPart(List.of(
                new ReplicationJobStatus(lease, "db/backups/", target, ReplicationJobStatus.State.RUNNING, 2, 3, 4, 5, 6, 7, 8, "remote down: ü"),
                new ReplicationJobStatus(1, "", new ReplicaTarget("::1", 1, "", "", ""), ReplicationJobStatus.State.DONE,
                        0, 0, 0, 0, 0, 0, 0, ""))));
        out.add(new Form(2, "more", new Frame(2, true, new Reply.ReplicationJobsPart(List.of()))));

        add(out, 3, "", new Request.Sync());
        add(out, 3, "", new Request.GetSettings());
        add(out, 3, "", new Reply.Settings(600));
        add(out, 3, "u32 max", new Reply.Settings(0xffffffffL));

        add(out, 4, "chunk list SHA-256", new Request.Commit(lease, name, 0x7fff_ffff_ffffL, stream, refs, chunkList));
        add(out, 4, "chunk list SHA-256", new Reply.RecipePart(0x7fff_ffff_ffffL, stream, refs, chunkList));

        add(out, 5, "no stream SHA-256", new Request.Commit(lease, name, 0, null, List.of(), chunkList));
        add(out, 5, "no stream SHA-256", new Reply.RecipePart(0, null, refs, chunkList));

        add(out, 6, "locks", new Reply.ObjectsPart(objects, true));
        add(out, 6, "no locks", new Reply.ObjectsPart(unlocked, true));
        add(out, 6, "bypass governance", new Request.DeleteObjects("db/backups/2026", true));
        add(out, 6, "bypass governance", new Request.DeleteObject(name, true));
        add(out, 6, "locked", new Reply.Error(ErrorCode.LOCKED, "locked until 2027"));
        add(out, 6, "forbidden", new Reply.Error(ErrorCode.FORBIDDEN, "role reader"));
        add(out, 6, "exists", new Reply.Error(ErrorCode.EXISTS, "committed"));

        add(out, 7, "uploaded", new Request.Sync(true));
        add(out, 7, "sync spool only", new Reply.Settings(300, true));
        add(out, 7, "not served", new Reply.Error(ErrorCode.NOT_SERVED, "standby"));
        return out;
    }

    @Test
    void everyFormIsTheBytesOfTheGoldenFile() throws IOException {
        Map<String, String[]> golden = golden();
        List<Form> forms = forms();
        assertEquals(new TreeSet<>(golden.keySet()), new TreeSet<>(forms.stream().map(Form::name).toList()),
                "a golden line per form, a form per golden line");
        for (Form f : forms) {
            String[] expected = golden.get(f.name());
            assertEquals(expected[0], hex(frameBytes(f.frame())), f.name() + ": bytes");
            assertEquals(expected[1], abuseDigest(frameBytes(f.frame())), f.name() + ": what the decoder makes of it damaged");
        }
    }

    @Test
    void everyGoldenFrameDecodesToItself() throws IOException {
        for (Map.Entry<String, String[]> e : golden().entrySet()) {
            byte[] bytes = HexFormat.of().parseHex(e.getValue()[0]);
            assertEquals(e.getValue()[0], hex(frameBytes(FrameCodec.decode(ByteBuffer.wrap(bytes)))), e.getKey());
        }
    }

    @Test
    void theFormsCoverEveryTypeAndEveryVersion() {
        Set<MessageType> types = EnumSet.noneOf(MessageType.class);
        Set<Integer> versions = new TreeSet<>();
        for (Form f : forms()) {
            assertTrue(f.version() >= f.frame().type().sinceVersion(), f.name() + " before its type");
            types.add(f.frame().type());
            versions.add(f.version());
        }
        assertEquals(EnumSet.allOf(MessageType.class), types);
        assertEquals(forms().size(), forms().stream().map(Form::name).distinct().count(), "one name per form");
        assertEquals(new TreeSet<>(ProtocolVersions.SUPPORTED), versions);
    }

    @Test
    void oneChangedFieldChangesTheLineAndItsDigest() {
        // The control case: the comparison above tells such frames apart.
        byte[] a = frameBytes(Frame.of(1, new Reply.Settings(600)));
        byte[] b = frameBytes(Frame.of(1, new Reply.Settings(601)));
        assertNotEquals(hex(a), hex(b));
        assertNotEquals(abuseDigest(a), abuseDigest(b));
    }

    /** Prints golden-frames.txt from the codec as it is. */
    public static void main(String[] args) {
        StringBuilder s = new StringBuilder();
        s.append("# Written by GoldenFramesTest.main: form, frame bytes (no length field), digest of the decoder's answers to damage.\n");
        for (Form f : forms()) {
            byte[] bytes = frameBytes(f.frame());
            s.append(f.name()).append('\t').append(hex(bytes)).append('\t').append(abuseDigest(bytes)).append('\n');
        }
        System.out.print(s);
    }

    private static Map<String, String[]> golden() throws IOException {
        Map<String, String[]> lines = new LinkedHashMap<>();
        try (InputStream in = GoldenFramesTest.class.getResourceAsStream(RESOURCE)) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.isEmpty() && !line.startsWith("#")) {
                    String[] cols = line.split("\t");
                    assertEquals(3, cols.length, line);
                    lines.put(cols[0], Arrays.copyOfRange(cols, 1, 3));
                }
            }
        }
        return lines;
    }

    /** SHA-256 of the decoder's answer to every cut, to an appended byte and to each byte set to each of {@link #MUTATIONS}. */
    static String abuseDigest(byte[] frame) {
        List<byte[]> damaged = new ArrayList<>();
        for (int cut = 0; cut < frame.length; cut++) {
            damaged.add(Arrays.copyOf(frame, cut));
        }
        for (byte extra : MUTATIONS) {
            byte[] longer = Arrays.copyOf(frame, frame.length + 1);
            longer[frame.length] = extra;
            damaged.add(longer);
        }
        for (int at = 0; at < frame.length; at++) {
            for (byte value : MUTATIONS) {
                byte[] changed = frame.clone();
                changed[at] = value;
                damaged.add(changed);
            }
        }
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (byte[] d : damaged) {
                sha.update(answer(d).getBytes(StandardCharsets.UTF_8));
                sha.update((byte) '\n');
            }
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String answer(byte[] frame) {
        try {
            return "decoded " + hex(frameBytes(FrameCodec.decode(ByteBuffer.wrap(frame))));
        } catch (StoreProtocolException e) {
            return e.code() + " " + e.getMessage();
        } catch (RuntimeException e) {
            return e.getClass().getName() + " " + e.getMessage();
        }
    }

    private static void add(List<Form> out, int version, String label, Message m) {
        out.add(new Form(version, label, Frame.of(0x10203040 + out.size(), m)));
    }

    private static byte[] frameBytes(Frame f) {
        ByteBuffer wire = FrameCodec.encode(f);
        return Arrays.copyOfRange(wire.array(), FrameCodec.LENGTH_FIELD, wire.limit());
    }

    private static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    private static Fingerprint fp(int i) {
        byte[] b = new byte[Fingerprint.LENGTH];
        for (int k = 0; k < b.length; k++) {
            b[k] = (byte) (i * 31 + k);
        }
        return Fingerprint.of(b);
    }

    private static byte[] sha(int seed) {
        byte[] b = new byte[Fingerprint.LENGTH];
        for (int k = 0; k < b.length; k++) {
            b[k] = (byte) (seed + 7 * k);
        }
        return b;
    }
}
