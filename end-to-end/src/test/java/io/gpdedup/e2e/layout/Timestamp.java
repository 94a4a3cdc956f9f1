package io.gpdedup.e2e.layout;

/** A gpbackup backup timestamp: 14 digits, the first 8 naming its date directory. */
public record Timestamp(String value) {
    public Timestamp {
        if (!value.matches("[0-9]{14}")) {
            throw new IllegalArgumentException("not a 14-digit timestamp: " + value);
        }
    }

    public static Timestamp of(long value) {
        return new Timestamp(String.format("%014d", value));
    }

    /** The {@code YYYYMMDD} directory (never a checked calendar date: plugin_test.sh uses 99999998...). */
    public String date() {
        return value.substring(0, 8);
    }

    public Timestamp plus(long seconds) {
        Timestamp t = of(Long.parseLong(value) + seconds);
        if (!t.date().equals(date())) {
            throw new IllegalArgumentException(this + " + " + seconds + " leaves its date directory");
        }
        return t;
    }

    @Override
    public String toString() {
        return value;
    }
}
