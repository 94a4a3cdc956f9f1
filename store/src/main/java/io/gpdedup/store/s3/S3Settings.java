package io.gpdedup.store.s3;

import java.net.URI;
import java.nio.file.Path;
import java.util.Objects;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;

/**
 * Where and how a store keeps its storage units in an S3-compatible bucket (config block
 * {@code storage:} with {@code type: s3}, docs/s3.md).
 *
 * @param endpoint              the S3 endpoint; {@code null}: AWS for the region
 * @param region                signing region (any value for most S3-compatible servers)
 * @param bucket                an existing bucket
 * @param prefix                every key starts with this ("" or ending in "/"), so several sites can share a bucket
 * @param pathStyle             bucket in the path ({@code http://host/bucket/key}) rather than the host name
 * @param cacheDir              local directory for the spool of containers being written and the read cache
 * @param cacheBytes            most bytes the read cache keeps (the spool comes on top)
 * @param leaseSeconds          a unit's lease lapses this long after its holder's last renewal
 * @param requestTimeoutSeconds one request attempt that sends or receives nothing this long is abandoned and retried
 * @param credentials           credentials, or {@code null} for the AWS SDK's default chain (environment,
 *                              profile file, instance role); set only by code (tests), never from the config
 */
public record S3Settings(URI endpoint, String region, String bucket, String prefix, boolean pathStyle, Path cacheDir, long cacheBytes,
        int leaseSeconds, int requestTimeoutSeconds, AwsCredentialsProvider credentials) {
    public static final long DEFAULT_CACHE_BYTES = 10L << 30;
    public static final int DEFAULT_LEASE_SECONDS = 30;
    public static final int DEFAULT_REQUEST_TIMEOUT_SECONDS = 30;
    public static final String DEFAULT_REGION = "us-east-1";

    public S3Settings {
        Objects.requireNonNull(region, "region");
        Objects.requireNonNull(bucket, "bucket");
        Objects.requireNonNull(prefix, "prefix");
        Objects.requireNonNull(cacheDir, "cacheDir");
        if (!prefix.isEmpty() && !prefix.endsWith("/")) {
            throw new IllegalArgumentException("prefix must be empty or end with /, not '" + prefix + "'");
        }
        if (prefix.startsWith("/")) {
            throw new IllegalArgumentException("prefix must not start with /");
        }
        if (cacheBytes < 0) {
            throw new IllegalArgumentException("cache-bytes must not be negative");
        }
        if (leaseSeconds < 6 || leaseSeconds > 3600) {
            throw new IllegalArgumentException("lease-seconds must be between 6 and 3600, not " + leaseSeconds);
        }
        if (requestTimeoutSeconds < 1 || requestTimeoutSeconds > 3600) {
            throw new IllegalArgumentException("request-timeout-seconds must be between 1 and 3600, not " + requestTimeoutSeconds);
        }
    }

    /** Settings for a bucket with every other value at its default. */
    public static S3Settings of(URI endpoint, String bucket, String prefix, Path cacheDir) {
        return new S3Settings(endpoint, DEFAULT_REGION, bucket, prefix, true, cacheDir, DEFAULT_CACHE_BYTES, DEFAULT_LEASE_SECONDS,
                DEFAULT_REQUEST_TIMEOUT_SECONDS, null);
    }

    public S3Settings withCredentials(AwsCredentialsProvider p) {
        return new S3Settings(endpoint, region, bucket, prefix, pathStyle, cacheDir, cacheBytes, leaseSeconds, requestTimeoutSeconds, p);
    }

    public S3Settings withEndpoint(URI e) {
        return new S3Settings(e, region, bucket, prefix, pathStyle, cacheDir, cacheBytes, leaseSeconds, requestTimeoutSeconds, credentials);
    }

    public S3Settings withCacheDir(Path d) {
        return new S3Settings(endpoint, region, bucket, prefix, pathStyle, d, cacheBytes, leaseSeconds, requestTimeoutSeconds, credentials);
    }

    public S3Settings withCacheBytes(long b) {
        return new S3Settings(endpoint, region, bucket, prefix, pathStyle, cacheDir, b, leaseSeconds, requestTimeoutSeconds, credentials);
    }

    public S3Settings withLeaseSeconds(int s) {
        return new S3Settings(endpoint, region, bucket, prefix, pathStyle, cacheDir, cacheBytes, s, requestTimeoutSeconds, credentials);
    }

    public S3Settings withRequestTimeoutSeconds(int s) {
        return new S3Settings(endpoint, region, bucket, prefix, pathStyle, cacheDir, cacheBytes, leaseSeconds, s, credentials);
    }

    /** Where the bucket is, for messages: endpoint (or AWS), bucket and prefix; never a credential. */
    public String describe() {
        return "bucket " + bucket + (prefix.isEmpty() ? "" : " prefix " + prefix) + " at "
                + (endpoint == null ? "AWS S3 (" + region + ")" : endpoint.toString());
    }

    @Override
    public String toString() {
        return describe();
    }
}
