package io.gpdedup.protocol.naming;

import java.util.regex.Pattern;

/**
 * A gpbackup timestamp: exactly 14 digits. Never checked as a calendar date, because gpbackup's own
 * plugin_test.sh uses timestamps such as 99999998765432.
 */
public record BackupTimestamp(String value) {
    private static final Pattern SHAPE = Pattern.compile("[0-9]{14}");

    public BackupTimestamp {
        if (value == null || !SHAPE.matcher(value).matches()) {
            throw new NameException("invalid backup timestamp '" + value + "': expected exactly 14 digits");
        }
    }

    public static BackupTimestamp parse(String text) {
        return new BackupTimestamp(text);
    }

    /** The {@code YYYYMMDD} directory gpbackup files this timestamp under. */
    String dateDirectory() {
        return value.substring(0, 8);
    }

    @Override
    public String toString() {
        return value;
    }
}
