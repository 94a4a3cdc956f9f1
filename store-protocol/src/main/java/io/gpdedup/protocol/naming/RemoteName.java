package io.gpdedup.protocol.naming;

import java.util.regex.Pattern;

/**
 * The name an object is stored under: {@code backups/<YYYYMMDD>/<timestamp>/<file name>}, taken from
 * the last four components of the host path gpbackup passes. The host's data directory never becomes
 * part of the name, so a restore on another cluster (or with --resize-cluster) finds the same objects.
 */
public record RemoteName(BackupTimestamp timestamp, String fileName) {
    /** The folder, under a cluster directory, that holds every backup's objects. */
    public static final String BACKUPS = "backups";

    private static final Pattern DATE = Pattern.compile("[0-9]{8}");
    private static final int MAX_FILE_NAME = 255;

    public RemoteName {
        requirePrintable("invalid file name:", fileName);
        if (!isPlainFileName(fileName)) {
            throw new NameException("invalid file name '" + fileName + "'");
        }
    }

    /** Parses a host path such as {@code /data/gpseg0/backups/20261123/20261123045500/gpbackup_0_20261123045500_16384}. */
    public static RemoteName fromLocalPath(String path) {
        if (path == null || path.isEmpty() || path.charAt(0) != '/') {
            throw new NameException("invalid backup file path '" + path + "': expected an absolute path ending in "
                    + "backups/<YYYYMMDD>/<timestamp>/<file name>");
        }
        requirePrintable("invalid backup file path:", path);
        String[] parts = path.split("/", -1);
        for (String part : parts) {
            if (part.equals("..")) {
                throw new NameException("invalid backup file path '" + path + "': '..' is not allowed");
            }
        }
        int n = parts.length;
        if (n < 5 || !parts[n - 4].equals(BACKUPS) || !DATE.matcher(parts[n - 3]).matches()) {
            throw new NameException("invalid backup file path '" + path + "': expected it to end in "
                    + "backups/<YYYYMMDD>/<timestamp>/<file name>");
        }
        BackupTimestamp ts;
        try {
            ts = BackupTimestamp.parse(parts[n - 2]);
        } catch (NameException e) {
            throw new NameException("invalid backup file path '" + path + "': " + e.getMessage());
        }
        if (!ts.dateDirectory().equals(parts[n - 3])) {
            throw new NameException("invalid backup file path '" + path + "': date directory " + parts[n - 3]
                    + " does not match timestamp " + ts);
        }
        String file = parts[n - 1];
        if (!isPlainFileName(file)) {
            throw new NameException("invalid backup file path '" + path + "': bad file name '" + file + "'");
        }
        return new RemoteName(ts, file);
    }

    /** Parses a name in its stored form {@code backups/<YYYYMMDD>/<timestamp>/<file name>}. */
    public static RemoteName parse(String name) {
        return fromLocalPath("/" + name);
    }

    private static boolean isPlainFileName(String s) {
        return s != null && !s.isEmpty() && s.length() <= MAX_FILE_NAME && !s.equals(".") && !s.equals("..")
                && s.indexOf('/') < 0 && firstControlCharacter(s) < 0;
    }

    /**
     * Refuses a name with a C0 control character or DEL (NUL, newline, escape...) in it. The name is
     * not echoed: a newline in the message would split the one line gpbackup shows.
     *
     * @param what how the message starts, e.g. {@code "invalid directory:"}
     */
    public static void requirePrintable(String what, String s) {
        int at = firstControlCharacter(s);
        if (at >= 0) {
            throw new NameException(what + " contains control character " + String.format("U+%04X", (int) s.charAt(at)) + " at position " + at
                    + " (names of stored objects are printable text)");
        }
    }

    private static int firstControlCharacter(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                return i;
            }
        }
        return -1;
    }

    /** The directory of every object of this backup: what delete_backup removes. */
    public static String backupPrefix(BackupTimestamp ts) {
        return BACKUPS + "/" + ts.dateDirectory() + "/" + ts;
    }

    public String path() {
        return backupPrefix(timestamp) + "/" + fileName;
    }

    @Override
    public String toString() {
        return path();
    }
}
