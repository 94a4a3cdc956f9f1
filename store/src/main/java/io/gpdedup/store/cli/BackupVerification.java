package io.gpdedup.store.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpdedup.store.retention.BackupVerifier;
import java.io.PrintStream;
import java.util.List;

/** What {@code verify --backup} found: a verdict per object of one backup timestamp, and whether the backup restores. */
public record BackupVerification(String unit, String timestamp, List<BackupVerifier.Checked> objects) {
    List<String> directories() {
        return objects.stream().map(BackupVerifier.Checked::directory).distinct().toList();
    }

    long damaged() {
        return objects.stream().filter(o -> !o.ok()).count();
    }

    public boolean restorable() {
        return damaged() == 0;
    }

    private long chunks() {
        return objects.stream().mapToLong(BackupVerifier.Checked::chunks).sum();
    }

    private long bytes() {
        return objects.stream().mapToLong(BackupVerifier.Checked::bytes).sum();
    }

    /** The last line: the verdict. */
    String verdict() {
        return "backup " + timestamp + ": " + (restorable() ? "restorable" : "NOT restorable (" + damaged() + " of " + objects.size() + " objects damaged)");
    }

    public void print(PrintStream out) {
        out.println("backup " + timestamp + " of unit " + unit + ", directories: " + String.join(", ", directories()));
        for (BackupVerifier.Checked o : objects) {
            if (o.ok()) {
                out.println("OK       " + o.object().name() + "  (" + o.chunks() + " chunks, " + AdminCommand.bytes(o.bytes()) + ")");
            } else {
                out.println("DAMAGED  " + o.object().name() + ": " + o.problem());
            }
        }
        out.println("objects checked: " + objects.size());
        out.println("chunks checked:  " + chunks());
        out.println("bytes checked:   " + AdminCommand.bytes(bytes()));
        out.println(verdict());
    }

    public ObjectNode toJson() {
        ObjectNode n = AdminCommand.JSON.createObjectNode();
        n.put("unit", unit);
        n.put("backup", timestamp);
        directories().forEach(n.putArray("directories")::add);
        ArrayNode list = n.putArray("objects");
        for (BackupVerifier.Checked o : objects) {
            ObjectNode e = list.addObject();
            e.put("directory", o.directory());
            e.put("name", o.object().name());
            e.put("length", o.object().length());
            e.put("status", o.ok() ? "ok" : "damaged");
            e.put("chunks_checked", o.chunks());
            e.put("bytes_checked", o.bytes());
            if (!o.ok()) {
                e.put("problem", o.problem());
            }
        }
        n.put("objects_checked", objects.size());
        n.put("objects_damaged", damaged());
        n.put("chunks_checked", chunks());
        n.put("bytes_checked", bytes());
        n.put("restorable", restorable());
        return n;
    }
}
