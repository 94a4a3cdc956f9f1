package io.gpdedup.store.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.gpdedup.protocol.naming.Sizes;
import io.gpdedup.store.s3.S3Settings;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;

/**
 * The config's {@code storage:} block (docs/s3.md): {@code type: local} (the default, units in the
 * data directory) or {@code type: s3} with a bucket. Credentials are never read from here: they come
 * from the AWS SDK's default chain.
 */
final class StorageSection {

    /** The block as written; every key optional but {@code type} and, for s3, {@code bucket}. */
    static final class StorageFile {
        @JsonProperty("type") String type;
        @JsonProperty("endpoint") String endpoint;
        @JsonProperty("region") String region;
        @JsonProperty("bucket") String bucket;
        @JsonProperty("prefix") String prefix;
        @JsonProperty("path-style") Boolean pathStyle;
        @JsonProperty("cache-dir") String cacheDir;
        @JsonProperty("cache-bytes") String cacheBytes;
        @JsonProperty("lease-seconds") Integer leaseSeconds;
        @JsonProperty("request-timeout-seconds") Integer requestTimeoutSeconds;
    }

    private StorageSection() {
    }

    /** The bucket settings, or {@code null} for local storage; relative paths against {@code base}. */
    static S3Settings parse(StorageFile f, String source, Path base, Path dataDir) {
        if (f == null) {
            return null;
        }
        String type = f.type == null ? "local" : f.type;
        if (type.equals("local")) {
            if (f.endpoint != null || f.bucket != null || f.prefix != null || f.cacheDir != null || f.cacheBytes != null
                    || f.region != null || f.pathStyle != null || f.leaseSeconds != null || f.requestTimeoutSeconds != null) {
                throw new ConfigLoader.ConfigException("config " + source + ": storage.type is local, which takes no other storage keys"
                        + " (set storage.type: s3 to use a bucket)");
            }
            return null;
        }
        if (!type.equals("s3")) {
            throw new ConfigLoader.ConfigException("config " + source + ": storage.type must be local or s3, not '" + type + "'");
        }
        if (f.bucket == null || f.bucket.isBlank()) {
            throw new ConfigLoader.ConfigException("config " + source + ": storage.bucket is missing (storage.type is s3)");
        }
        URI endpoint = null;
        if (f.endpoint != null) {
            try {
                endpoint = new URI(f.endpoint);
            } catch (URISyntaxException e) {
                endpoint = null;
            }
            if (endpoint == null || endpoint.getHost() == null || !("http".equals(endpoint.getScheme()) || "https".equals(endpoint.getScheme()))) {
                throw new ConfigLoader.ConfigException("config " + source + ": storage.endpoint must be an http:// or https:// address"
                        + " with a host, such as http://127.0.0.1:9000");
            }
        }
        try {
            return new S3Settings(endpoint,
                    f.region == null ? S3Settings.DEFAULT_REGION : f.region,
                    f.bucket,
                    f.prefix == null ? "" : f.prefix,
                    f.pathStyle == null ? endpoint != null : f.pathStyle,
                    f.cacheDir == null ? dataDir.resolve("cache") : StorePaths.resolve(f.cacheDir, base),
                    f.cacheBytes == null ? S3Settings.DEFAULT_CACHE_BYTES : bytes(f.cacheBytes, "storage.cache-bytes"),
                    f.leaseSeconds == null ? S3Settings.DEFAULT_LEASE_SECONDS : f.leaseSeconds,
                    f.requestTimeoutSeconds == null ? S3Settings.DEFAULT_REQUEST_TIMEOUT_SECONDS : f.requestTimeoutSeconds,
                    null);
        } catch (IllegalArgumentException e) {
            throw new ConfigLoader.ConfigException("config " + source + ": storage: " + e.getMessage());
        }
    }

    /** A size: bytes, or a number with a unit (KiB, MiB, GiB, TiB; KB, MB, GB, TB are powers of 1000). */
    static long bytes(String text, String key) {
        try {
            return Sizes.parseDecimalKilo(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + " must be a size such as 10GiB or 500MiB");
        }
    }
}
