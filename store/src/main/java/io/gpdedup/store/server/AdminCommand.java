package io.gpdedup.store.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpdedup.store.client.ClientSettings;
import io.gpdedup.store.client.StoreClient;
import io.gpdedup.store.client.StoreClientException;
import io.gpdedup.store.engine.GcReport;
import io.gpdedup.store.engine.ObjectInfo;
import io.gpdedup.store.engine.UnitStats;
import io.gpdedup.store.engine.VerifyReport;
import io.gpdedup.store.protocol.ReplicationJobStatus;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The admin subcommands: connect to a running server as a client of one storage unit and print
 * what it answers. The password comes from --password-file, else $GPDEDUP_STORE_PASSWORD, else
 * the demo default.
 */
abstract class AdminCommand implements Callable<Integer> {
    static final String PASSWORD_ENV = "GPDEDUP_STORE_PASSWORD";

    @Option(names = "--host", paramLabel = "HOST", description = "server address (default: ${DEFAULT-VALUE})")
    String host = StoreConfig.DEFAULT_LISTEN_ADDRESS;

    @Option(names = "--port", paramLabel = "N", description = "server port (default: the port file of --data-dir, else 7411)")
    Integer port;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "where to find the port file of a local server (default: ~/.gpdedup/store)")
    Path dataDir;

    @Option(names = "--unit", paramLabel = "UNIT", description = "storage unit (default: ${DEFAULT-VALUE})")
    String unit = DemoConfig.UNIT;

    @Option(names = "--user", paramLabel = "USER", description = "user (default: ${DEFAULT-VALUE})")
    String user = DemoConfig.USER;

    @Option(names = "--password-file", paramLabel = "FILE", description = "file whose first line is the password")
    Path passwordFile;

    @Override
    public Integer call() {
        try (StoreClient client = StoreClient.connect(ClientSettings.of(host, port(), unit, user, password()))) {
            return run(client, System.out);
        } catch (StoreClientException | IOException e) {
            System.err.println("gpdedup-store: " + e.getMessage());
            return 1;
        }
    }

    abstract int run(StoreClient client, PrintStream out);

    private int port() throws IOException {
        if (port != null) {
            return port;
        }
        Path file = StorePaths.portFile(dataDir != null ? dataDir : StorePaths.defaultDataDir());
        if (Files.isRegularFile(file)) {
            try {
                return Integer.parseInt(Files.readString(file).trim());
            } catch (NumberFormatException e) {
                throw new IOException("port file " + file + " does not hold a port number");
            }
        }
        return StoreConfig.DEFAULT_PORT;
    }

    private String password() throws IOException {
        if (passwordFile != null) {
            String text = Files.readString(passwordFile, StandardCharsets.UTF_8);
            int nl = text.indexOf('\n');
            return (nl < 0 ? text : text.substring(0, nl)).strip();
        }
        String env = System.getenv(PASSWORD_ENV);
        return env != null ? env : DemoConfig.PASSWORD;
    }

    static String bytes(long n) {
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
            description = "Re-reads and re-hashes every chunk of the unit and checks every recipe; exit 3 if anything is damaged.")
    static final class Verify extends AdminCommand {
        @Override
        int run(StoreClient client, PrintStream out) {
            VerifyReport r = client.verify();
            out.println("chunks checked:  " + r.chunksChecked());
            out.println("bytes checked:   " + bytes(r.bytesChecked()));
            out.println("objects checked: " + r.objectsChecked());
            r.damagedObjects().forEach(o -> out.println("DAMAGED: " + o));
            r.problems().forEach(p -> out.println("problem: " + p));
            out.println(r.ok() ? "verify: OK" : "verify: FAILED");
            return r.ok() ? 0 : 3;
        }
    }

    @Command(name = "gc", mixinStandardHelpOptions = true, description = "Reclaims the chunks no object of the unit references.")
    static final class Gc extends AdminCommand {
        @Override
        int run(StoreClient client, PrintStream out) {
            GcReport r = client.gc();
            out.println("chunks before:        " + r.chunksBefore());
            out.println("chunks removed:       " + r.chunksRemoved());
            out.println("bytes reclaimed:      " + bytes(r.bytesReclaimed()));
            out.println("containers rewritten: " + r.containersRewritten());
            return 0;
        }
    }

    @Command(name = "stat", mixinStandardHelpOptions = true, description = "Prints the unit's object, chunk and byte counts and its dedup ratio.")
    static final class Stat extends AdminCommand {
        @Override
        int run(StoreClient client, PrintStream out) {
            UnitStats s = client.stats();
            out.println("unit:           " + unit);
            out.println("objects:        " + s.objects());
            out.println("logical bytes:  " + bytes(s.logicalBytes()));
            out.println("chunks:         " + s.chunks());
            out.println("physical bytes: " + bytes(s.physicalBytes()));
            out.println("dedup ratio:    " + (s.physicalBytes() == 0 ? "-" : String.format(Locale.ROOT, "%.2f", (double) s.logicalBytes() / s.physicalBytes())));
            out.println("containers:     " + s.containers());
            out.println("index bytes:    " + bytes(s.indexBytes()));
            return 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists the unit's objects: length, commit time, name.")
    static final class ListObjects extends AdminCommand {
        @Parameters(arity = "0..1", paramLabel = "PREFIX", description = "only names starting with this")
        String prefix = "";

        @Override
        int run(StoreClient client, PrintStream out) {
            for (ObjectInfo o : client.list(prefix)) {
                out.println(o.length() + "\t" + Instant.ofEpochMilli(o.committedAtMillis()) + "\t" + o.name());
            }
            return 0;
        }
    }

    @Command(name = "replication", mixinStandardHelpOptions = true,
            description = "Lists the unit's background replication jobs: waiting, running, and the most recent finished ones.")
    static final class Replication extends AdminCommand {
        private static final ObjectMapper JSON = new ObjectMapper();

        @Option(names = "--json", description = "one JSON array, for scripts")
        boolean json;

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
                out.println("no replication jobs in unit " + unit);
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
