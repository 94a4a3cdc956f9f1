package io.gpdedup.store.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreClient;
import io.gpdedup.client.StoreClientException;
import io.gpdedup.client.StoreServerException;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.RetentionLock;
import io.gpdedup.protocol.naming.BackupTimestamp;
import io.gpdedup.protocol.naming.NameException;
import io.gpdedup.protocol.report.GcReport;
import io.gpdedup.protocol.report.UnitStats;
import io.gpdedup.protocol.report.VerifyReport;
import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.protocol.wire.ReplicationJobStatus;
import io.gpdedup.store.config.ConfigLoader;
import io.gpdedup.store.retention.BackupFigures;
import io.gpdedup.store.retention.BackupSet;
import io.gpdedup.store.retention.BackupVerifier;
import io.gpdedup.store.retention.RetentionPolicy;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The admin subcommands: connect to a running server as a client of one storage unit and print
 * what it answers, as text or, with --json, as one JSON document; {@link StoreConnectionOptions}
 * says which server and as whom.
 */
public abstract class AdminCommand implements Callable<Integer> {
    public static final ObjectMapper JSON = new ObjectMapper();

    @Mixin
    StoreConnectionOptions connection;

    @Option(names = "--json", description = "print one JSON document, for scripts")
    boolean json;

    @Override
    public Integer call() {
        try {
            checkOptions();
        } catch (IllegalArgumentException e) {
            System.err.println("gpdedup-store: " + e.getMessage());
            return 2;
        }
        ClientSettings settings;
        try {
            settings = connection.settings();
        } catch (ConfigLoader.ConfigException | IOException | IllegalArgumentException e) {
            System.err.println("gpdedup-store: " + e.getMessage());
            return 2;
        }
        try (StoreClient client = StoreClient.connect(settings)) {
            return run(client, System.out);
        } catch (StoreClientException e) {
            System.err.println("gpdedup-store: " + e.getMessage() + connection.addressSource());
            return 1;
        } catch (IOException e) {
            System.err.println("gpdedup-store: " + e.getMessage());
            return 1;
        }
    }

    abstract int run(StoreClient client, PrintStream out) throws IOException;

    /** The storage unit the command works on. */
    String unit() {
        return connection.unit();
    }

    /** Refuses options that do not go together before connecting. */
    void checkOptions() {
    }

    /** Refuses a backup timestamp gpbackup would not have made, naming the command. */
    static void checkTimestamp(String command, String timestamp) {
        try {
            BackupTimestamp.parse(timestamp);
        } catch (NameException e) {
            throw new IllegalArgumentException(command + ": " + e.getMessage());
        }
    }

    static void printJson(PrintStream out, JsonNode node) {
        out.println(node.toPrettyString());
    }

    public static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        String units = "KMGTPE";
        double v = n;
        int i = -1;
        while (v >= 1024 && i < units.length() - 1) {
            v /= 1024;
            i++;
        }
        return String.format(Locale.ROOT, "%.2f %siB (%d bytes)", v, units.charAt(i), n);
    }

    @Command(name = "verify", mixinStandardHelpOptions = true,
            description = {"Re-reads and re-hashes every chunk of the unit and checks every recipe; exit 3 if anything is damaged.",
                "With --backup, checks one backup as a restore reads it, restoring nothing: each recipe, every chunk it references "
                + "(decoded and checked against its SHA-256 and length), the chunk list and stream SHA-256; says whether it is "
                + "restorable (exit 0), not (exit 3), or not there (exit 1)."})
    static final class Verify extends AdminCommand {
        @Option(names = "--backup", paramLabel = "TIMESTAMP", description = "check only this backup (gpbackup's 14-digit timestamp)")
        String backup;

        @Option(names = "--directory", paramLabel = "D", description = "with --backup: only the backup of this cluster directory "
                + "(the plugin's 'directory' option; default: that timestamp's backup of every directory)")
        String directory;

        @Override
        void checkOptions() {
            if (backup == null) {
                if (directory != null) {
                    throw new IllegalArgumentException("verify: --directory goes with --backup TIMESTAMP");
                }
                return;
            }
            checkTimestamp("verify", backup);
        }

        @Override
        int run(StoreClient client, PrintStream out) {
            if (backup != null) {
                return verifyBackup(client, out);
            }
            VerifyReport r;
            try (AdminProgress p = AdminProgress.onTerminal("verify")) {
                r = client.verify();
            }
            if (json) {
                ObjectNode n = JSON.createObjectNode();
                n.put("unit", unit());
                n.put("ok", r.ok());
                n.put("chunks_checked", r.chunksChecked());
                n.put("bytes_checked", r.bytesChecked());
                n.put("objects_checked", r.objectsChecked());
                r.damagedObjects().forEach(n.putArray("damaged_objects")::add);
                r.problems().forEach(n.putArray("problems")::add);
                printJson(out, n);
            } else {
                out.println("chunks checked:  " + r.chunksChecked());
                out.println("bytes checked:   " + bytes(r.bytesChecked()));
                out.println("objects checked: " + r.objectsChecked());
                r.damagedObjects().forEach(o -> out.println("DAMAGED: " + o));
                r.problems().forEach(p -> out.println("problem: " + p));
                out.println(r.ok() ? "verify: OK" : "verify: FAILED");
            }
            return r.ok() ? 0 : 3;
        }

        private int verifyBackup(StoreClient client, PrintStream out) {
            BackupVerifier verifier = new BackupVerifier(client);
            List<BackupSet> backups = verifier.backups(BackupTimestamp.parse(backup), directory);
            if (backups.isEmpty()) {
                System.err.println("gpdedup-store: no backup " + backup + " in unit " + unit()
                        + (directory == null ? " (in any directory)" : " under directory " + directory));
                return 1;
            }
            long total = backups.stream().mapToLong(BackupSet::logicalBytes).sum();
            BackupVerification v;
            try (AdminProgress p = AdminProgress.onTerminal("verify", () -> bytes(verifier.bytesDone()) + " of " + bytes(total) + " checked")) {
                v = new BackupVerification(unit(), backup, verifier.check(backups));
            }
            if (json) {
                printJson(out, v.toJson());
            } else {
                v.print(out);
            }
            return v.restorable() ? 0 : 3;
        }
    }

    @Command(name = "gc", mixinStandardHelpOptions = true, description = "Reclaims the chunks no object of the unit references.")
    static final class Gc extends AdminCommand {
        @Override
        int run(StoreClient client, PrintStream out) {
            GcReport r;
            try (AdminProgress p = AdminProgress.onTerminal("gc")) {
                r = client.gc();
            }
            if (json) {
                printJson(out, gcJson(r));
            } else {
                printGc(out, r);
            }
            return 0;
        }
    }

    static ObjectNode gcJson(GcReport r) {
        ObjectNode n = JSON.createObjectNode();
        n.put("chunks_before", r.chunksBefore());
        n.put("chunks_removed", r.chunksRemoved());
        n.put("bytes_reclaimed", r.bytesReclaimed());
        n.put("containers_rewritten", r.containersRewritten());
        return n;
    }

    static void printGc(PrintStream out, GcReport r) {
        out.println("chunks before:        " + r.chunksBefore());
        out.println("chunks removed:       " + r.chunksRemoved());
        out.println("bytes reclaimed:      " + bytes(r.bytesReclaimed()));
        out.println("containers rewritten: " + r.containersRewritten());
    }

    @Command(name = "stat", mixinStandardHelpOptions = true, description = "Prints the unit's object, chunk and byte counts and its dedup ratio.")
    static final class Stat extends AdminCommand {
        @Override
        int run(StoreClient client, PrintStream out) {
            UnitStats s = client.stats();
            if (json) {
                ObjectNode n = JSON.createObjectNode();
                n.put("unit", unit());
                n.put("objects", s.objects());
                n.put("logical_bytes", s.logicalBytes());
                n.put("chunks", s.chunks());
                n.put("physical_bytes", s.physicalBytes());
                if (s.physicalBytes() == 0) {
                    n.putNull("dedup_ratio");
                } else {
                    n.put("dedup_ratio", (double) s.logicalBytes() / s.physicalBytes());
                }
                n.put("containers", s.containers());
                n.put("index_bytes", s.indexBytes());
                printJson(out, n);
                return 0;
            }
            out.println("unit:           " + unit());
            out.println("objects:        " + s.objects());
            out.println("logical bytes:  " + bytes(s.logicalBytes()));
            out.println("chunks:         " + s.chunks());
            out.println("physical bytes: " + bytes(s.physicalBytes()));
            out.println("dedup ratio:    " + ratio(s.logicalBytes(), s.physicalBytes()));
            out.println("containers:     " + s.containers());
            out.println("index bytes:    " + bytes(s.indexBytes()));
            return 0;
        }
    }

    static String ratio(long logical, long stored) {
        return stored == 0 ? "-" : String.format(Locale.ROOT, "%.2f", (double) logical / stored);
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists the unit's objects: length, commit time, name.")
    static final class ListObjects extends AdminCommand {
        @Parameters(arity = "0..1", paramLabel = "PREFIX", description = "only names starting with this")
        String prefix = "";

        @Override
        int run(StoreClient client, PrintStream out) {
            List<ObjectInfo> objects = client.list(prefix);
            if (json) {
                ArrayNode list = JSON.createArrayNode();
                for (ObjectInfo o : objects) {
                    ObjectNode n = list.addObject();
                    n.put("name", o.name());
                    n.put("length", o.length());
                    n.put("committed_at", Instant.ofEpochMilli(o.committedAtMillis()).toString());
                    if (o.lock().mode() != RetentionLock.Mode.NONE) {
                        n.put("lock_mode", o.lock().mode().word());
                        n.put("locked_until", Instant.ofEpochMilli(o.lock().untilMillis()).toString());
                    }
                }
                printJson(out, list);
                return 0;
            }
            for (ObjectInfo o : objects) {
                out.println(o.length() + "\t" + Instant.ofEpochMilli(o.committedAtMillis()) + "\t" + o.name()
                        + (o.lock().mode() == RetentionLock.Mode.NONE ? "" : "\t" + o.lock().describe()));
            }
            return 0;
        }
    }

    @Command(name = "backups", mixinStandardHelpOptions = true,
            description = {"Lists the unit's backups (objects named <directory>/backups/<date>/<timestamp>/<file>), oldest first: "
                + "files, logical bytes, bytes new to the store, dedup ratio, when the last file was committed.",
                "New bytes are the uncompressed bytes of the chunks no older backup listed here references; "
                + "the ratio is logical bytes over new bytes. Reads every recipe of the backups listed."})
    static final class Backups extends AdminCommand {
        @Option(names = "--directory", paramLabel = "D", description = "only the backups of this cluster directory (the plugin's 'directory' option)")
        String directory;

        @Option(names = "--stored-bytes", description = "also the bytes the new chunks take as stored (compressed): reads each of them once, "
                + "as long as reading all the data of the backups listed")
        boolean stored;

        @Override
        int run(StoreClient client, PrintStream out) {
            List<BackupFigures> figures;
            try (AdminProgress p = AdminProgress.onTerminal("backups")) {
                figures = BackupFigures.of(client, BackupSet.of(client.list(directory == null ? "" : BackupSet.backupsOf(directory))), stored);
            }
            if (json) {
                ArrayNode list = JSON.createArrayNode();
                figures.forEach(f -> f.toJson(list.addObject()));
                printJson(out, list);
                return 0;
            }
            if (figures.isEmpty()) {
                out.println("no backups in unit " + unit() + (directory == null ? "" : " under directory " + directory));
                return 0;
            }
            out.printf(Locale.ROOT, "%-20s %-14s %6s %16s %16s%s %7s  %s%n", "directory", "timestamp", "files", "logical bytes", "new bytes",
                    stored ? String.format(Locale.ROOT, " %16s", "stored bytes") : "", "ratio", "finished");
            for (BackupFigures f : figures) {
                out.printf(Locale.ROOT, "%-20s %-14s %6d %16d %16d%s %7s  %s%n", f.backup().directory(), f.backup().timestamp(),
                        f.backup().objects().size(), f.backup().logicalBytes(), f.newBytes(),
                        stored ? String.format(Locale.ROOT, " %16d", f.storedBytes()) : "", ratio(f.backup().logicalBytes(), f.newBytes()),
                        Instant.ofEpochMilli(f.backup().finishedAtMillis()));
            }
            return 0;
        }
    }

    @Command(name = "prune", mixinStandardHelpOptions = true,
            description = {"Applies a retention policy to the backups of one cluster directory: deletes the backups no --keep-* "
                + "rule keeps (as the plugin's delete_backup does), then collects the unit's garbage and prints what it freed.",
                "Rules as restic forget: the newest N; the newest of each of the last N days, ISO weeks, months that have backups."})
    static final class Prune extends AdminCommand {
        @Option(names = "--directory", paramLabel = "D", required = true, description = "the cluster directory (the plugin's 'directory' option)")
        String directory;

        @Option(names = "--keep-last", paramLabel = "N", description = "keep the N newest backups")
        int last;

        @Option(names = "--keep-daily", paramLabel = "N", description = "keep the newest backup of each of the last N days with backups")
        int daily;

        @Option(names = "--keep-weekly", paramLabel = "N", description = "keep the newest backup of each of the last N weeks with backups")
        int weekly;

        @Option(names = "--keep-monthly", paramLabel = "N", description = "keep the newest backup of each of the last N months with backups")
        int monthly;

        @Option(names = "--dry-run", description = "print what would be deleted, delete nothing")
        boolean dryRun;

        @Option(names = "--bypass-governance", description = "also delete backups whose governance retention lock has not ended "
                + "(needs the admin role; the store logs it); compliance locks are never bypassed")
        boolean bypassGovernance;

        @Override
        void checkOptions() {
            policy();
        }

        private RetentionPolicy policy() {
            return new RetentionPolicy(last, daily, weekly, monthly);
        }

        @Override
        int run(StoreClient client, PrintStream out) {
            RetentionPolicy policy = policy();
            List<BackupSet> backups = BackupSet.of(client.list(BackupSet.backupsOf(directory)));
            Map<String, BackupSet> byTimestamp = new LinkedHashMap<>();
            backups.forEach(b -> byTimestamp.put(b.timestamp(), b));
            Map<String, List<String>> plan = policy.apply(new ArrayList<>(byTimestamp.keySet()));
            ObjectNode doc = JSON.createObjectNode();
            doc.put("directory", directory);
            doc.put("dry_run", dryRun);
            ArrayNode kept = doc.putArray("kept");
            ArrayNode deleted = doc.putArray("deleted");
            long deletedBytes = 0;
            int deletedCount = 0;
            long now = System.currentTimeMillis();
            for (var e : plan.entrySet()) {
                BackupSet b = byTimestamp.get(e.getKey());
                List<String> reasons = new ArrayList<>(e.getValue());
                RetentionLock lock = b.lock();
                boolean bypassed = reasons.isEmpty() && lock.holdsAt(now) && bypassGovernance && lock.mode() == RetentionLock.Mode.GOVERNANCE;
                if (reasons.isEmpty() && lock.holdsAt(now) && !bypassed) {
                    reasons.add(lock.describe());
                }
                long objects = 0;
                if (reasons.isEmpty() && !dryRun) {
                    try {
                        objects = client.deleteObjects(b.prefix(), bypassed);
                    } catch (StoreServerException locked) {
                        if (locked.code() != ErrorCode.LOCKED) {
                            throw locked;
                        }
                        reasons.add(locked.getMessage());
                    }
                }
                if (!reasons.isEmpty()) {
                    ObjectNode k = kept.addObject();
                    k.put("timestamp", b.timestamp());
                    reasons.forEach(k.putArray("reasons")::add);
                    if (!json) {
                        out.println("keep    " + b.timestamp() + "  (" + String.join(", ", reasons) + ")");
                    }
                    continue;
                }
                if (dryRun) {
                    objects = b.objects().size();
                }
                deletedBytes += b.logicalBytes();
                deletedCount++;
                ObjectNode d = deleted.addObject();
                d.put("timestamp", b.timestamp());
                d.put("files", objects);
                d.put("logical_bytes", b.logicalBytes());
                if (bypassed) {
                    d.put("bypassed_lock", lock.describe());
                }
                if (!json) {
                    out.println((dryRun ? "would delete " : "deleted ") + b.timestamp() + "  (" + objects + " files, "
                            + bytes(b.logicalBytes()) + " logical" + (bypassed ? "; bypassed: " + lock.describe() : "") + ")");
                }
            }
            if (dryRun || deletedCount == 0) {
                if (json) {
                    printJson(out, doc);
                } else {
                    out.println((dryRun ? "would delete " : "deleted ") + deletedCount + " of " + plan.size() + " backups, "
                            + bytes(deletedBytes) + " logical; nothing collected");
                }
                return 0;
            }
            GcReport r;
            try (AdminProgress p = AdminProgress.onTerminal("gc")) {
                r = client.gc();
            }
            if (json) {
                doc.set("gc", gcJson(r));
                printJson(out, doc);
            } else {
                out.println("deleted " + deletedCount + " of " + plan.size() + " backups, " + bytes(deletedBytes) + " logical; freed "
                        + bytes(r.bytesReclaimed()));
                printGc(out, r);
            }
            return 0;
        }
    }

    @Command(name = "replication", mixinStandardHelpOptions = true,
            description = "Lists the unit's background replication jobs: waiting, running, and the most recent finished ones.")
    static final class Replication extends AdminCommand {
        @Override
        int run(StoreClient client, PrintStream out) {
            List<ReplicationJobStatus> jobs = client.replicationJobs();
            if (json) {
                ArrayNode list = JSON.createArrayNode();
                jobs.forEach(j -> {
                    ObjectNode n = list.addObject();
                    n.put("id", j.id());
                    n.put("source", j.source());
                    n.put("target", j.target().toString());
                    n.put("state", j.state().name().toLowerCase(Locale.ROOT));
                    n.put("attempts", j.attempts());
                    n.put("objects_copied", j.objectsCopied());
                    n.put("chunks_sent", j.chunksSent());
                    n.put("bytes_sent", j.bytesSent());
                    n.put("enqueued_at", Instant.ofEpochMilli(j.enqueuedAtMillis()).toString());
                    n.put("updated_at", Instant.ofEpochMilli(j.updatedAtMillis()).toString());
                    n.put("next_attempt_at", j.nextAttemptAtMillis() == 0 ? null : Instant.ofEpochMilli(j.nextAttemptAtMillis()).toString());
                    n.put("last_error", j.lastError().isEmpty() ? null : j.lastError());
                });
                out.println(list.toPrettyString());
                return 0;
            }
            if (jobs.isEmpty()) {
                out.println("no replication jobs in unit " + unit());
            }
            for (ReplicationJobStatus j : jobs) {
                out.println("job " + j.id() + ": " + j.state().name().toLowerCase(Locale.ROOT) + ", " + j.attempts() + " attempts, "
                        + j.objectsCopied() + " objects, " + bytes(j.bytesSent()) + " sent");
                out.println("  " + j.source() + " -> " + j.target());
                if (j.nextAttemptAtMillis() != 0) {
                    out.println("  next attempt: " + Instant.ofEpochMilli(j.nextAttemptAtMillis()));
                }
                if (!j.lastError().isEmpty()) {
                    out.println("  last error: " + j.lastError());
                }
            }
            return 0;
        }
    }
}
