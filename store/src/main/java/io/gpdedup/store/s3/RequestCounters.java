package io.gpdedup.store.s3;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/**
 * Requests sent to the bucket, by operation (PutObject, GetObject, ListObjectsV2, ...), every
 * attempt counted, retries included: what a provider bills, and what docs/s3.md reports per GiB.
 * Exposed as {@code gpdedup_store_bucket_requests_total{operation}} on the metrics endpoint.
 */
public final class RequestCounters implements ExecutionInterceptor, MeterBinder {
    /** The operations the store sends. */
    static final List<String> OPERATIONS = List.of("PutObject", "GetObject", "ListObjectsV2", "DeleteObject", "PutObjectRetention",
            "HeadObject", "ListObjectVersions", "GetObjectLockConfiguration");

    private final Map<String, LongAdder> attempts = new ConcurrentHashMap<>();
    private final LongAdder retainedDeletes = new LongAdder();

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attrs) {
        String op = attrs.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
        attempts.computeIfAbsent(op == null ? "other" : op, k -> new LongAdder()).increment();
    }

    /** Attempts so far, by operation name, sorted. */
    public Map<String, Long> snapshot() {
        Map<String, Long> m = new TreeMap<>();
        attempts.forEach((k, v) -> m.put(k, v.sum()));
        return m;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (String op : OPERATIONS) {
            FunctionCounter.builder("gpdedup.store.bucket.requests", this, c -> c.of(op))
                    .description("requests sent to the bucket, retries included").tag("operation", op).register(registry);
        }
        FunctionCounter.builder("gpdedup.store.bucket.deletes.retained", retainedDeletes, LongAdder::sum)
                .description("objects the store meant to delete that the bucket still holds under their retention (tried again later)")
                .register(registry);
    }

    /** Objects a deletion left because the bucket's Object Lock still holds them. */
    void retainedDeletes(int n) {
        retainedDeletes.add(n);
    }

    public long retainedDeletes() {
        return retainedDeletes.sum();
    }

    public long of(String operation) {
        LongAdder a = attempts.get(operation);
        return a == null ? 0 : a.sum();
    }
}
