package io.gpdedup.bench.compare;

/**
 * One tool doing one step in one round.
 *
 * @param bytes stream bytes backed up or restored
 * @param repoGrowth growth of the repository on disk ({@code du -sb}) over the step; 0 for restores
 * @param physicalGrowth growth of the store's physical bytes; -1 for tools without a store
 * @param settled what the tool's own background work did after a backup before it went quiet
 *     (the store's recompression); null for tools with none, and for restores
 * @param failure why the step failed (then {@code result} is null), or null
 */
record Observation(int round, String tool, Step step, long bytes, StepResult result, long repoGrowth, long physicalGrowth,
        Settled settled, String failure) {
    /**
     * After a backup, once the tool's background work ended.
     *
     * @param repoGrowth growth of the repository over the step and that work together
     * @param cpuNanos CPU the tool's service used for that work
     * @param wallNanos how long it took, from the backup's end
     */
    record Settled(long repoGrowth, long cpuNanos, long wallNanos) {
    }

    static Observation failed(int round, String tool, Step step, long bytes, String failure) {
        return new Observation(round, tool, step, bytes, null, 0, -1, null, failure);
    }

    /** The repository's growth once background work settled, or as the backup left it when there is none. */
    long settledGrowth() {
        return settled == null ? repoGrowth : settled.repoGrowth();
    }

    boolean failed() {
        return failure != null;
    }

    double mibPerSecond() {
        return ByteSize.mibPerSecond(bytes, result.run().wallNanos());
    }
}
