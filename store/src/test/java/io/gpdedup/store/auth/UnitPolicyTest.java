package io.gpdedup.store.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.BackupSession;
import io.gpdedup.client.StoreClient;
import io.gpdedup.client.StoreServerException;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.RetentionLock;
import io.gpdedup.protocol.wire.ChunkUpload;
import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.ProtocolVersions;
import io.gpdedup.protocol.wire.Reply;
import io.gpdedup.protocol.wire.Request;
import io.gpdedup.store.config.StoreConfig;
import io.gpdedup.store.engine.CommitPolicy;
import io.gpdedup.store.net.RawConnection;
import io.gpdedup.store.net.StoreFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A unit's policy over the wire: retention locks recorded at commit and enforced on delete and
 * replacement, no silent replacement, roles; and what protocol version 5 clients see of it.
 */
class UnitPolicyTest {
    private static final String PREFIX = "db/backups/20261101/20261101000000/";
    private static final String NAME = PREFIX + "file";

    @TempDir
    Path dir;

    private static StoreFixture start(Path dir, Role role, CommitPolicy commits) {
        Map<String, UnitPolicy> policies = Map.of(StoreFixture.UNIT_A,
                new UnitPolicy(role == Role.UNASSIGNED ? Map.of() : Map.of(StoreFixture.USER_A, role), commits));
        return StoreFixture.start(dir, c -> c.withPolicies(policies), e -> e);
    }

    private static void commit(StoreClient c, String name, String text) {
        byte[] raw = text.getBytes(StandardCharsets.UTF_8);
        Fingerprint fp = Fingerprint.compute(raw, 0, raw.length);
        try (BackupSession s = c.beginBackup()) {
            s.put(List.of(new ChunkUpload(fp, Codec.NONE, raw.length, raw))).join();
            s.commit(name, new Recipe(List.of(new ChunkRef(fp, raw.length)), raw.length, Fingerprint.newDigest().digest(raw))).join();
        }
    }

    private static ErrorCode failure(Runnable call) {
        Throwable t = assertThrows(RuntimeException.class, call::run);
        if (t instanceof CompletionException) {
            t = t.getCause();
        }
        return ((StoreServerException) t).code();
    }

    private static String text(StoreClient c, String name) {
        ChunkRef ref = c.recipe(name).orElseThrow().chunks().get(0);
        return new String(c.chunks(new Fingerprint[] {ref.fingerprint()}).join().get(0).payload(), StandardCharsets.UTF_8);
    }

    @Test
    void aGovernanceLockHoldsOffDeletesAndReplacementsUntilAnAdminBypassesIt() {
        long before = System.currentTimeMillis();
        try (StoreFixture store = start(dir, Role.ADMIN, new CommitPolicy(RetentionLock.Mode.GOVERNANCE, 3, false));
                StoreClient c = store.connectA()) {
            commit(c, NAME, "first");
            long after = System.currentTimeMillis();
            ObjectInfo listed = c.list("").get(0);
            assertEquals(RetentionLock.Mode.GOVERNANCE, listed.lock().mode());
            long day = TimeUnit.DAYS.toMillis(1);
            assertTrue(listed.lock().untilMillis() >= before + 3 * day && listed.lock().untilMillis() <= after + 3 * day, listed.toString());

            assertEquals(ErrorCode.LOCKED, failure(() -> commit(c, NAME, "second")));
            commit(c, NAME, "first"); // the same content again: a commit whose answer was lost, made
            assertEquals(ErrorCode.LOCKED, failure(() -> c.deleteObjects(PREFIX)));
            assertEquals(ErrorCode.LOCKED, failure(() -> c.deleteObject(NAME)));
            assertEquals("first", text(c, NAME));
            assertEquals(1, c.deleteObjects(PREFIX, true));
            assertEquals(List.of(), c.list(""));
        }
    }

    @Test
    void aComplianceLockYieldsToNobody() {
        try (StoreFixture store = start(dir, Role.ADMIN, new CommitPolicy(RetentionLock.Mode.COMPLIANCE, 1, true));
                StoreClient c = store.connectA()) {
            commit(c, NAME, "kept");
            StoreServerException e = assertThrows(StoreServerException.class, () -> c.deleteObjects(PREFIX, true));
            assertEquals(ErrorCode.LOCKED, e.code());
            assertTrue(e.getMessage().contains("locked until") && e.getMessage().contains("(compliance)")
                    && e.getMessage().contains("nothing deleted"), e.getMessage());
            // overwrite: allow does not reach a locked object
            assertEquals(ErrorCode.LOCKED, failure(() -> commit(c, NAME, "other")));
            assertEquals("kept", text(c, NAME));
        }
    }

    @Test
    void committedObjectsAreReplacedOnlyWhenTheUnitAllowsIt() {
        try (StoreFixture store = start(dir, Role.UNASSIGNED, UnitPolicy.DEFAULT.commits()); StoreClient c = store.connectA()) {
            commit(c, NAME, "18 MB of table data");
            StoreServerException e = assertThrows(StoreServerException.class, () -> {
                try {
                    commit(c, NAME, "abc");
                } catch (CompletionException ce) {
                    throw (RuntimeException) ce.getCause();
                }
            });
            assertEquals(ErrorCode.EXISTS, e.code());
            assertTrue(e.getMessage().contains("already exists") && e.getMessage().contains("overwrite: allow"), e.getMessage());
            assertEquals("18 MB of table data", text(c, NAME));
            // No role: deletes as before roles, but never a bypass.
            assertEquals(ErrorCode.FORBIDDEN, failure(() -> c.deleteObjects(PREFIX, true)));
            assertEquals(1, c.deleteObjects(PREFIX));
        }
        try (StoreFixture store = start(dir.resolve("allow"), Role.UNASSIGNED, new CommitPolicy(RetentionLock.Mode.NONE, 0, true));
                StoreClient c = store.connectA()) {
            commit(c, NAME, "old");
            commit(c, NAME, "new");
            assertEquals("new", text(c, NAME));
        }
    }

    @Test
    void rolesLimitWhatAUserMaySend() {
        try (StoreFixture store = start(dir, Role.UNASSIGNED, UnitPolicy.DEFAULT.commits()); StoreClient c = store.connectA()) {
            commit(c, NAME, "data");
        }
        try (StoreFixture store = start(dir, Role.RESTORE, UnitPolicy.DEFAULT.commits()); StoreClient c = store.connectA()) {
            assertEquals("data", text(c, NAME));
            StoreServerException e = assertThrows(StoreServerException.class, c::beginBackup);
            assertEquals(ErrorCode.FORBIDDEN, e.code());
            assertTrue(e.getMessage().contains("restore role") && e.getMessage().contains("needs the backup role"), e.getMessage());
            assertEquals(ErrorCode.FORBIDDEN, failure(() -> c.deleteObjects(PREFIX)));
            assertEquals(ErrorCode.FORBIDDEN, failure(c::gc));
            c.stats();
        }
        try (StoreFixture store = start(dir, Role.BACKUP, UnitPolicy.DEFAULT.commits()); StoreClient c = store.connectA()) {
            commit(c, PREFIX + "second", "more");
            StoreServerException e = assertThrows(StoreServerException.class, () -> c.deleteObjects(PREFIX));
            assertEquals(ErrorCode.FORBIDDEN, e.code());
            assertTrue(e.getMessage().contains("needs the admin role"), e.getMessage());
            assertEquals(ErrorCode.FORBIDDEN, failure(c::gc));
            assertEquals(2, c.list("").size());
        }
    }

    @Test
    void aReloadThatTakesARoleAwayAppliesToOpenConnections() throws Exception {
        try (StoreFixture store = start(dir, Role.ADMIN, UnitPolicy.DEFAULT.commits()); StoreClient c = store.connectA()) {
            commit(c, NAME, "data");
            commit(c, PREFIX + "second", "more");
            assertEquals(1, c.deleteObjects(PREFIX + "second"));
            StoreConfig reader = StoreConfig.defaults(dir, Map.of(StoreFixture.UNIT_A,
                    Map.of(StoreFixture.USER_A, PasswordHash.create(StoreFixture.PASSWORD_A.toCharArray(), 1_000))))
                    .withPolicies(Map.of(StoreFixture.UNIT_A, new UnitPolicy(Map.of(StoreFixture.USER_A, Role.RESTORE), UnitPolicy.DEFAULT.commits())));
            store.service.reloadUsers(reader);
            StoreServerException e = assertThrows(StoreServerException.class, () -> c.deleteObjects(PREFIX));
            assertEquals(ErrorCode.FORBIDDEN, e.code());
            assertTrue(e.getMessage().contains("has the restore role"), e.getMessage());
            assertEquals("data", text(c, NAME));
        }
    }

    @Test
    void versionFiveClientsGetNoLocksAndAStoreErrorForNewCodes() throws Exception {
        try (StoreFixture store = start(dir, Role.UNASSIGNED, new CommitPolicy(RetentionLock.Mode.GOVERNANCE, 1, false))) {
            try (StoreClient c = store.connectA()) {
                commit(c, NAME, "locked");
            }
            List<Integer> upToFive = new ArrayList<>();
            for (int v = ProtocolVersions.V1; v <= ProtocolVersions.V5; v++) {
                upToFive.add(v);
            }
            try (RawConnection old = RawConnection.loggedIn(store.port(), upToFive)) {
                old.send(Frame.of(3, new Request.ListObjects("")));
                Reply.ObjectsPart part = (Reply.ObjectsPart) old.read().message();
                assertFalse(part.withLocks(), "a version 5 client would read the locks as bytes after the body");
                assertEquals(RetentionLock.NONE, part.objects().get(0).lock());
                old.send(Frame.of(4, new Request.DeleteObjects(PREFIX)));
                Reply.Error e = (Reply.Error) old.read().message();
                assertEquals(ErrorCode.STORE_ERROR, e.code());
                assertTrue(e.message().contains("locked until"), e.message());
            }
            try (RawConnection now = RawConnection.loggedIn(store.port())) {
                now.send(Frame.of(3, new Request.ListObjects("")));
                Reply.ObjectsPart part = (Reply.ObjectsPart) now.read().message();
                assertTrue(part.withLocks());
                assertEquals(RetentionLock.Mode.GOVERNANCE, part.objects().get(0).lock().mode());
            }
        }
    }

    @Test
    void theLockIsRecordedWithTheObjectAndOutlivesAConfigWithoutIt() {
        try (StoreFixture store = start(dir, Role.ADMIN, new CommitPolicy(RetentionLock.Mode.COMPLIANCE, 2, false));
                StoreClient c = store.connectA()) {
            commit(c, NAME, "kept");
        }
        try (StoreFixture store = start(dir, Role.ADMIN, new CommitPolicy(RetentionLock.Mode.NONE, 0, true)); StoreClient c = store.connectA()) {
            assertEquals(ErrorCode.LOCKED, failure(() -> c.deleteObjects(PREFIX, true)));
            assertEquals(ErrorCode.LOCKED, failure(() -> commit(c, NAME, "other")));
            // Collection keeps what a locked object references.
            c.gc();
            assertArrayEquals("kept".getBytes(StandardCharsets.UTF_8), text(c, NAME).getBytes(StandardCharsets.UTF_8));
        }
    }
}
