package io.gpdedup.bench.compare;

/**
 * One tool doing one step in one round.
 *
 * @param bytes stream bytes backed up or restored
 * @param repoGrowth growth of the repository on disk ({@code du -sb}) over the step; 0 for restores
 * @param physicalGrowth growth of the store's physical bytes; -1 for tools without a store
 * @param failure why the step failed (then {@code result} is null), or null
 */
record Observation(int round, String tool, Step step, long bytes, StepResult result, long repoGrowth, long physicalGrowth, String failure) {
    static Observation failed(int round, String tool, Step step, long bytes, String failure) {
        return new Observation(round, tool, step, bytes, null, 0, -1, failure);
    }

    boolean failed() {
        return failure != null;
    }

    double mibPerSecond() {
        return ByteSize.mibPerSecond(bytes, result.run().wallNanos());
    }
}
