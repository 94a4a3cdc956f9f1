package io.gpdedup.store.server;

import io.gpdedup.store.chunk.ObjectInfo;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The backups of a unit as gpbackup and the plugin name their objects,
 * {@code <directory>/backups/<YYYYMMDD>/<timestamp>/<file>}: one per cluster directory and
 * timestamp. Objects not named so belong to no backup and are left out.
 */
record BackupSet(String directory, String timestamp, List<ObjectInfo> objects) {
    private static final Pattern NAME = Pattern.compile("(.+)/backups/([0-9]{8})/([0-9]{14})/[^/]+");

    /** Groups {@code objects} by backup, oldest timestamp first (then by directory). */
    static List<BackupSet> of(List<ObjectInfo> objects) {
        Map<String, List<ObjectInfo>> byKey = new TreeMap<>();
        for (ObjectInfo o : objects) {
            Matcher m = NAME.matcher(o.name());
            if (m.matches() && m.group(3).startsWith(m.group(2))) {
                byKey.computeIfAbsent(m.group(3) + "\0" + m.group(1), k -> new ArrayList<>()).add(o);
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
    static String backupsOf(String directory) {
        return directory.replaceAll("/+$", "") + "/backups/";
    }

    /** What the plugin's delete_backup removes for this backup. */
    String prefix() {
        return directory + "/backups/" + timestamp.substring(0, 8) + "/" + timestamp + "/";
    }

    long logicalBytes() {
        return objects.stream().mapToLong(ObjectInfo::length).sum();
    }

    /** When its last object was committed. */
    long finishedAtMillis() {
        return objects.stream().map(ObjectInfo::committedAtMillis).max(Comparator.naturalOrder()).orElse(0L);
    }
}
