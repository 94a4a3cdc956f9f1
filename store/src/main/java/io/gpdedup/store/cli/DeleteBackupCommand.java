package io.gpdedup.store.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpdedup.client.StoreClient;
import io.gpdedup.store.retention.BackupSet;
import java.io.PrintStream;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code gpdedup-store delete-backup}: deletes one backup of a cluster directory as the plugin's
 * delete_backup does, and is where a unit admin ends a governance retention lock early.
 */
@Command(name = "delete-backup", mixinStandardHelpOptions = true,
        description = {"Deletes one backup of a cluster directory, as the plugin's delete_backup does; its chunks go at the unit's next "
            + "garbage collection. A backup under a retention lock is refused whole, with the date the lock ends."})
final class DeleteBackupCommand extends AdminCommand {
    @Option(names = "--directory", paramLabel = "D", required = true, description = "the cluster directory (the plugin's 'directory' option)")
    String directory;

    @Parameters(arity = "1", paramLabel = "TIMESTAMP", description = "the backup's timestamp (YYYYMMDDHHMMSS)")
    String timestamp;

    @Option(names = "--bypass-governance", description = "also delete it while its governance retention lock holds "
            + "(needs the admin role; the store logs it); a compliance lock is never bypassed")
    boolean bypassGovernance;

    @Override
    void checkOptions() {
        checkTimestamp("delete-backup", timestamp);
    }

    @Override
    int run(StoreClient client, PrintStream out) {
        List<BackupSet> found = BackupSet.of(client.list(BackupSet.backupsOf(directory))).stream()
                .filter(b -> b.timestamp().equals(timestamp)).toList();
        if (found.isEmpty()) {
            System.err.println("gpdedup-store: no backup " + timestamp + " in directory " + directory + " of unit " + unit());
            return 1;
        }
        BackupSet b = found.get(0);
        long files = client.deleteObjects(b.prefix(), bypassGovernance);
        if (json) {
            ObjectNode n = JSON.createObjectNode();
            n.put("directory", directory);
            n.put("timestamp", timestamp);
            n.put("files", files);
            n.put("logical_bytes", b.logicalBytes());
            printJson(out, n);
        } else {
            out.println("deleted " + timestamp + "  (" + files + " files, " + bytes(b.logicalBytes()) + " logical)");
        }
        return 0;
    }
}
