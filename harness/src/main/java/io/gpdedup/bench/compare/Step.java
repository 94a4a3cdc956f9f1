package io.gpdedup.bench.compare;

/** The steps of one round, in order; each tool does a step before any tool does the next. */
enum Step {
    FIRST("first backup", 0),
    REPEAT("repeat backup (same bytes)", 0),
    CLUSTERED("backup after clustered update", 1),
    INSERTED("backup after inserted runs", 2),
    SCATTERED("backup after scattered updates", 3),
    RESTORE("restore of the last backup", 3);

    private final String label;
    private final int stream;

    Step(String label, int stream) {
        this.label = label;
        this.stream = stream;
    }

    String label() {
        return label;
    }

    /** Index in {@link StreamSet#files()} of the stream this step backs up (a restore gives back the last one backed up). */
    int stream() {
        return stream;
    }

    /** The snapshot name a backup step creates. */
    String snapshot() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    boolean isBackup() {
        return this != RESTORE;
    }
}
