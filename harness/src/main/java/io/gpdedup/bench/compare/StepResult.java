package io.gpdedup.bench.compare;

/**
 * What one timed backup or restore cost.
 *
 * @param run the client process: wall time, CPU, restored bytes and their hash
 * @param serverCpuNanos CPU of a server process during the run (gpdedup-store); -1 for tools without one
 * @param wireBytesUp bytes the client sent to the server over TCP; -1 when not measured
 * @param chunkBytesSent compressed chunk payloads the plugin reported sending; -1 when not reported
 * @param bucketRequests requests the store sent to its bucket during the run, by operation (a store on S3 only)
 */
record StepResult(Measured run, long serverCpuNanos, long wireBytesUp, long chunkBytesSent, java.util.Map<String, Long> bucketRequests) {
    StepResult(Measured run, long serverCpuNanos, long wireBytesUp, long chunkBytesSent) {
        this(run, serverCpuNanos, wireBytesUp, chunkBytesSent, java.util.Map.of());
    }

    static StepResult local(Measured run) {
        return new StepResult(run, -1, -1, -1);
    }

    /** Requests of one operation (PutObject, GetObject, ...) the store sent to its bucket during the run; 0 without a bucket. */
    long requests(String operation) {
        return bucketRequests.getOrDefault(operation, 0L);
    }
}
