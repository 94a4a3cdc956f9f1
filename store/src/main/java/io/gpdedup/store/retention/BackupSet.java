package io.gpdedup.store.retention;

import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.RetentionLock;
import io.gpdedup.protocol.naming.BackupTimestamp;
import io.gpdedup.protocol.naming.NameException;
import io.gpdedup.protocol.naming.RemoteName;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The backups of a unit as gpbackup and the plugin name their objects,
 * {@code <directory>/}{@link RemoteName}: one per cluster directory and timestamp. Objects not
 * named so belong to no backup and are left out.
 */
public record BackupSet(String directory, String timestamp, List<ObjectInfo> objects) {

    /** Groups {@code objects} by backup, oldest timestamp first (then by directory). */
    public static List<BackupSet> of(List<ObjectInfo> objects) {
        Map<String, List<ObjectInfo>> byKey = new TreeMap<>();
        for (ObjectInfo o : objects) {
            RemoteName name;
            try {
                name = RemoteName.parse(o.name());
            } catch (NameException notABackupObject) {
                continue;
            }
            int cut = o.name().length() - name.path().length() - 1;
            if (cut > 0 && o.name().charAt(cut) == '/') {
                byKey.computeIfAbsent(name.timestamp() + "\0" + o.name().substring(0, cut), k -> new ArrayList<>()).add(o);
            }
        }
        List<BackupSet> out = new ArrayList<>();
        byKey.forEach((key, list) -> {
            int cut = key.indexOf('\0');
            out.add(new BackupSet(key.substring(cut + 1), key.substring(0, cut), List.copyOf(list)));
        });
        return out;
    }

    /** The prefix of every backup of a cluster directory (the plugin's 'directory' option, trailing slashes allowed). */
    public static String backupsOf(String directory) {
        return directory.replaceAll("/+$", "") + "/" + RemoteName.BACKUPS + "/";
    }

    /** What the plugin's delete_backup removes for this backup. */
    public String prefix() {
        return directory + "/" + RemoteName.backupPrefix(BackupTimestamp.parse(timestamp)) + "/";
    }

    public long logicalBytes() {
        return objects.stream().mapToLong(ObjectInfo::length).sum();
    }

    /** The lock that ends last among its objects: until it ends the backup cannot be deleted whole. */
    public RetentionLock lock() {
        RetentionLock latest = RetentionLock.NONE;
        for (ObjectInfo o : objects) {
            latest = latest.max(o.lock());
        }
        return latest;
    }

    /** When its last object was committed. */
    public long finishedAtMillis() {
        return objects.stream().map(ObjectInfo::committedAtMillis).max(Comparator.naturalOrder()).orElse(0L);
    }
}
