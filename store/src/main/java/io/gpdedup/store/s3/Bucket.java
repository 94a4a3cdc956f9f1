package io.gpdedup.store.s3;

import io.gpdedup.protocol.concurrent.Futures;
import io.gpdedup.protocol.model.RetentionLock;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.RetryableException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The store's view of one bucket under one prefix: whole-object and ranged reads, writes whose
 * content the server checks against a Content-MD5 (and whose ETag is compared with it), listings
 * and deletions. Keys passed in are relative to the prefix. Throttling (503 SlowDown), server
 * errors, timeouts and cut connections are retried with exponential backoff by the SDK; what still
 * fails is a {@link BucketException} with a message for an operator. Thread-safe.
 */
public final class Bucket implements AutoCloseable {
    /** Attempts per request (first try included) before a failure is reported. */
    static final int MAX_ATTEMPTS = 6;
    /** Attempts of a request that must answer soon (a start's check, a lease renewal), and how long it may take in all. */
    private static final int QUICK_ATTEMPTS = 3;
    private static final Duration QUICK_LIMIT = Duration.ofSeconds(5);
    /**
     * The start's check: the first request of a process also loads the SDK, which on a busy machine
     * alone can take seconds, so it gets longer than a lease renewal, still failing within a minute.
     */
    private static final Duration START_LIMIT = Duration.ofSeconds(30);
    private static final int MAX_CONNECTIONS = 64;
    private static final int DELETERS = 8;

    /** An object as listed: key relative to the prefix, size and ETag (quotes removed). */
    public record Listed(String key, long size, String etag) {
    }

    /** An object as read: its bytes, its ETag, when it was last written, and the server's clock when it answered. */
    public record Fetched(byte[] bytes, String etag, Instant lastModified, Instant serverNow) {
    }

    /** The time a write beginning now may take in all, its attempts and their backoff included; or a refusal to begin it. */
    @FunctionalInterface
    interface WriteLimit {
        Duration remaining() throws BucketException;
    }

    private final S3Client s3;
    private final S3Client quickClient;
    private final S3Settings settings;
    private final RequestCounters counters;
    private final ExecutorService deleters;
    private volatile Boolean conditionalWrites;
    private final BucketLocks locks;
    /** {@code null}: a write is bounded by its attempts and their timeouts only. */
    private final WriteLimit limit;

    private final boolean owner;

    private Bucket(S3Client s3, S3Client quickClient, S3Settings settings, RequestCounters counters, boolean owner, BucketLocks shared,
            ExecutorService deleters, WriteLimit limit) {
        this.owner = owner;
        this.s3 = s3;
        this.quickClient = quickClient;
        this.settings = settings;
        this.counters = counters;
        this.locks = shared != null ? shared : new BucketLocks(this, s3);
        this.deleters = deleters != null ? deleters : Executors.newFixedThreadPool(DELETERS, r -> {
            Thread t = new Thread(r, "gpdedup-bucket-delete");
            t.setDaemon(true);
            return t;
        });
        this.limit = limit;
    }

    /** A client for the settings' bucket; nothing is sent until the first request ({@link #check()}). */
    public static Bucket open(S3Settings settings) {
        RequestCounters counters = new RequestCounters();
        S3Client quick = client(settings, counters, QUICK_ATTEMPTS, QUICK_LIMIT);
        return new Bucket(client(settings, counters, MAX_ATTEMPTS, null), quick, settings, counters, true, null, null, null);
    }

    /**
     * The same bucket through a client that gives up sooner: for a lease, whose renewal must not
     * hang on one request while its time runs out (the next renewal is a new chance).
     */
    public Bucket quick() {
        return new Bucket(quickClient, quickClient, settings, counters, false, locks, deleters, null);
    }

    /**
     * The same bucket, each PUT and DELETE given no more time in all than {@code limit} says when
     * it begins: a unit's writes under its lease, none of which may still be under way once another
     * store could take the unit over (docs/s3.md, fencing). A write out of time fails, not retried further.
     */
    Bucket fenced(WriteLimit limit) {
        return new Bucket(s3, quickClient, settings, counters, false, locks, deleters, limit);
    }

    private static S3Client client(S3Settings settings, RequestCounters counters, int attempts, Duration callLimit) {
        Duration timeout = Duration.ofSeconds(callLimit == null ? settings.requestTimeoutSeconds()
                : Math.min(settings.requestTimeoutSeconds(), callLimit.getSeconds()));
        S3ClientBuilder b = S3Client.builder()
                .region(Region.of(settings.region()))
                .forcePathStyle(settings.pathStyle())
                .credentialsProvider(settings.credentials() != null ? settings.credentials() : DefaultCredentialsProvider.builder().build())
                .httpClientBuilder(ApacheHttpClient.builder()
                        .maxConnections(MAX_CONNECTIONS)
                        .connectionTimeout(Duration.ofSeconds(Math.min(10, settings.requestTimeoutSeconds())))
                        .socketTimeout(timeout)
                        .connectionAcquisitionTimeout(Duration.ofSeconds(60)))
                // Checksums only where an operation needs one, as Content-MD5: what every S3-compatible
                // server understands (the SDK's default trailing CRC is not).
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                // Uploads go with an unsigned payload on http too: the server checks them against their signed Content-MD5.
                .putAuthScheme(new Md5CheckedSigning())
                .overrideConfiguration(o -> o
                        .retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder()
                                .maxAttempts(attempts)
                                .circuitBreakerEnabled(false)
                                .backoffStrategy(BackoffStrategy.exponentialDelay(Duration.ofMillis(100), Duration.ofSeconds(5)))
                                .throttlingBackoffStrategy(BackoffStrategy.exponentialDelay(Duration.ofMillis(500), Duration.ofSeconds(5)))
                                .build())
                        .apiCallTimeout(callLimit)
                        .addExecutionInterceptor(counters));
        if (settings.endpoint() != null) {
            b.endpointOverride(settings.endpoint());
        }
        return b.build();
    }

    public S3Settings settings() {
        return settings;
    }

    public RequestCounters counters() {
        return counters;
    }

    /** The bucket's S3 Object Lock: whether it is enabled, retentions, deletions of object versions. */
    BucketLocks locks() {
        return locks;
    }

    /** The full key of a key relative to the prefix. */
    String fullKey(String key) {
        return settings.prefix() + key;
    }

    /**
     * Checks that the bucket exists and that the credentials may list it: what a start needs to
     * know before it serves anything. Tried a few times only: a start should fail fast.
     */
    public void check() throws BucketException {
        try (S3Client start = client(settings, counters, QUICK_ATTEMPTS, START_LIMIT)) {
            start.listObjectsV2(r -> r.bucket(settings.bucket()).prefix(settings.prefix()).maxKeys(1));
        } catch (SdkException e) {
            throw failure("list " + settings.describe(), e);
        }
    }

    /** Writes an object from memory with its Content-MD5; returns its ETag. */
    public String put(String key, byte[] data) throws BucketException {
        return put(key, data, RetentionLock.NONE);
    }

    /** As {@link #put(String, byte[])}, the object held by the bucket's Object Lock as {@code lock} says (none for NONE). */
    public String put(String key, byte[] data, RetentionLock lock) throws BucketException {
        byte[] md5 = md5(data);
        return put(key, md5, BucketLocks.retained(PutObjectRequest.builder(), lock), RequestBody.fromBytes(data));
    }

    /** Writes an object from a file (its whole content) with its Content-MD5. */
    public void putFile(String key, Path file) throws BucketException {
        byte[] md5;
        try {
            md5 = md5(file);
        } catch (IOException e) {
            throw new BucketException(BucketException.Kind.FAILED, "cannot read " + file + " to upload it: " + e.getMessage(), e);
        }
        putFile(key, file, md5);
    }

    /**
     * Writes an object from a file whose MD5 is known: the server refuses the upload if the file no
     * longer holds the bytes that {@code md5} was computed from.
     */
    public void putFile(String key, Path file, byte[] md5) throws BucketException {
        putFile(key, file, md5, RetentionLock.NONE);
    }

    /** As {@link #putFile(String, Path, byte[])}, the object held by the bucket's Object Lock as {@code lock} says. */
    public void putFile(String key, Path file, byte[] md5, RetentionLock lock) throws BucketException {
        put(key, md5, BucketLocks.retained(PutObjectRequest.builder(), lock), RequestBody.fromFile(file));
    }

    /**
     * Writes an object only if there is none under the key (If-None-Match: *); a
     * {@link BucketException.Kind#CONFLICT} when there is. Needs {@link #conditionalWrites()}.
     */
    public String putIfAbsent(String key, byte[] data) throws BucketException {
        return put(key, md5(data), PutObjectRequest.builder().ifNoneMatch("*"), RequestBody.fromBytes(data));
    }

    /** Writes an object only if its ETag is still {@code etag} (If-Match); a CONFLICT otherwise. Needs {@link #conditionalWrites()}. */
    public String putIfMatch(String key, byte[] data, String etag) throws BucketException {
        return put(key, md5(data), PutObjectRequest.builder().ifMatch(quoted(etag)), RequestBody.fromBytes(data));
    }

    private String put(String key, byte[] md5, PutObjectRequest.Builder req, RequestBody body) throws BucketException {
        String what = "write " + key;
        Duration bound = limit == null ? null : limit.remaining();
        if (bound != null) {
            req.overrideConfiguration(o -> o.apiCallTimeout(bound));
        }
        try {
            PutObjectResponse r = s3.putObject(req.bucket(settings.bucket()).key(fullKey(key)).contentMD5(Base64.getEncoder().encodeToString(md5))
                    .build(), body);
            String etag = unquoted(r.eTag());
            // A single-part upload's ETag is the MD5 of its content, unless the server encrypts with
            // its own keys (then it is something else and the Content-MD5 check above stands alone).
            if (etag != null && etag.length() == 32 && etag.matches("[0-9a-fA-F]{32}") && !etag.equalsIgnoreCase(HexFormat.of().formatHex(md5))) {
                throw new BucketException(BucketException.Kind.FAILED, "the bucket stored something else than was sent for " + key
                        + " (ETag " + etag + ", content MD5 " + HexFormat.of().formatHex(md5) + ")", null);
            }
            return etag;
        } catch (ApiCallTimeoutException e) {
            throw outOfTime(what, bound, e);
        } catch (SdkException e) {
            throw failure(what, e);
        }
    }

    BucketException outOfTime(String what, Duration bound, ApiCallTimeoutException e) {
        return new BucketException(BucketException.Kind.FAILED, what + ": " + where() + " did not complete it within the "
                + (bound == null ? "time" : bound.toMillis() + " ms") + " left before the unit's lease could lapse; try again", e);
    }

    /** An object's bytes, empty if there is none. */
    public Optional<byte[]> get(String key) throws BucketException {
        return fetch(key).map(Fetched::bytes);
    }

    /** An object with its ETag, modification time and the server's clock; empty if there is none. */
    public Optional<Fetched> fetch(String key) throws BucketException {
        try {
            ResponseBytes<GetObjectResponse> r = s3.getObjectAsBytes(b -> b.bucket(settings.bucket()).key(fullKey(key)));
            GetObjectResponse resp = r.response();
            Instant now = resp.sdkHttpResponse().firstMatchingHeader("Date").map(Bucket::httpDate).orElse(Instant.now());
            return Optional.of(new Fetched(r.asByteArray(), unquoted(resp.eTag()), resp.lastModified(), now));
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (S3Exception e) {
            if (e.statusCode() == 404 && !"NoSuchBucket".equals(code(e))) {
                return Optional.empty();
            }
            throw failure("read " + key, e);
        } catch (SdkException e) {
            throw failure("read " + key, e);
        }
    }

    /** {@code length} bytes of an object from {@code offset} (one ranged GET), in an array of that length. */
    public byte[] getRange(String key, long offset, int length) throws BucketException {
        byte[] b = new byte[length];
        getRange(key, offset, ByteBuffer.wrap(b));
        return b;
    }

    /**
     * The bytes of an object from {@code offset} in one ranged GET, read straight into the
     * remaining space of each of the (array-backed) buffers in turn: the read cache fetches
     * several segments of a container so, in one request.
     */
    public void getRange(String key, long offset, ByteBuffer... into) throws BucketException {
        long length = 0;
        for (ByteBuffer b : into) {
            length += b.remaining();
        }
        String what = "read " + key + " bytes " + offset + "+" + length;
        long last = offset + length - 1;
        try {
            s3.getObject(r -> r.bucket(settings.bucket()).key(fullKey(key)).range("bytes=" + offset + "-" + last),
                    (GetObjectResponse resp, AbortableInputStream in) -> {
                        // A body cut short is retried as the SDK's own transformers do: as a RetryableException.
                        try {
                            for (ByteBuffer b : into) {
                                int n = in.readNBytes(b.array(), b.arrayOffset() + b.position(), b.remaining());
                                if (n != b.remaining()) {
                                    throw new IOException("got " + n + " bytes where " + b.remaining() + " were due");
                                }
                            }
                            if (in.read() >= 0) {
                                throw new IOException("got more bytes");
                            }
                            return null;
                        } catch (IOException e) {
                            throw RetryableException.builder().message(what + ": " + e.getMessage()).cause(e).build();
                        }
                    });
        } catch (SdkException e) {
            throw failure(what, e);
        }
    }

    /** A part of an object read by {@link #getPart}: the bytes read, and the whole object's length and ETag. */
    public record Part(int read, long objectLength, String etag) {
    }

    /**
     * Up to {@code into.length} bytes of an object from {@code offset} (one ranged GET), only if
     * its ETag is still {@code ifMatch} unless that is null (else a {@link BucketException.Kind#CONFLICT});
     * empty if there is no object.
     */
    public Optional<Part> getPart(String key, long offset, byte[] into, String ifMatch) throws BucketException {
        String what = "read " + key + " bytes " + offset + "+" + into.length;
        try {
            return Optional.of(s3.getObject(r -> r.bucket(settings.bucket()).key(fullKey(key)).ifMatch(ifMatch)
                    .range("bytes=" + offset + "-" + (offset + into.length - 1)), (GetObjectResponse resp, AbortableInputStream in) -> {
                        try {
                            int n = in.readNBytes(into, 0, into.length);
                            String range = resp.contentRange(); // "bytes first-last/length"
                            long length = range == null ? n : Long.parseLong(range.substring(range.lastIndexOf('/') + 1).trim());
                            if (range == null && in.read() >= 0) {
                                throw new IOException("the server sent the whole object for a range");
                            }
                            return new Part(n, length, unquoted(resp.eTag()));
                        } catch (IOException e) {
                            throw RetryableException.builder().message(what + ": " + e.getMessage()).cause(e).build();
                        }
                    }));
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (S3Exception e) {
            if (e.statusCode() == 404 && !"NoSuchBucket".equals(code(e))) {
                return Optional.empty();
            }
            if (e.statusCode() == 416 && offset == 0) {
                return Optional.of(new Part(0, 0, null)); // an empty object has no range to read
            }
            throw failure(what, e);
        } catch (SdkException e) {
            throw failure(what, e);
        }
    }

    /** Every object whose key (relative to the prefix) starts with {@code keyPrefix}, in key order. */
    public List<Listed> list(String keyPrefix) throws BucketException {
        List<Listed> out = new ArrayList<>();
        String token = null;
        do {
            Page p = listPage(keyPrefix, token);
            out.addAll(p.objects());
            token = p.next();
        } while (token != null);
        return out;
    }

    /** A page of a listing, and the token of the next one (null: the listing is complete). */
    record Page(List<Listed> objects, String next) {
    }

    /** One page (up to 1,000 objects on S3) of the listing of {@code keyPrefix}, from {@code token} (null: the first). */
    Page listPage(String keyPrefix, String token) throws BucketException {
        return listPage(keyPrefix, token, null);
    }

    /** As {@link #listPage(String, String)}, the first page starting after key {@code after} unless that is null. */
    Page listPage(String keyPrefix, String token, String after) throws BucketException {
        List<Listed> out = new ArrayList<>();
        try {
            ListObjectsV2Response r = s3.listObjectsV2(ListObjectsV2Request.builder().bucket(settings.bucket()).prefix(fullKey(keyPrefix))
                    .continuationToken(token).startAfter(token == null && after != null ? fullKey(after) : null).build());
            for (S3Object o : r.contents()) {
                if (o.key().endsWith("/")) {
                    continue; // a directory marker (S3Proxy's filesystem backend lists its directories so), never one of ours
                }
                out.add(new Listed(o.key().substring(settings.prefix().length()), o.size(), unquoted(o.eTag())));
            }
            return new Page(out, Boolean.TRUE.equals(r.isTruncated()) ? r.nextContinuationToken() : null);
        } catch (SdkException e) {
            throw failure("list " + keyPrefix, e);
        }
    }

    /**
     * Deletes an object that is never held by Object Lock (the lease, a checkpoint, a probe): in a
     * versioned bucket this adds a delete marker, and the bucket's lifecycle rule frees the versions
     * (docs/s3.md, section 7), rather than a request per version of a key rewritten every few seconds.
     */
    public void delete(String key) throws BucketException {
        Duration bound = limit == null ? null : limit.remaining();
        try {
            s3.deleteObject(b -> {
                b.bucket(settings.bucket()).key(fullKey(key));
                if (bound != null) {
                    b.overrideConfiguration(o -> o.apiCallTimeout(bound));
                }
            });
        } catch (ApiCallTimeoutException e) {
            throw outOfTime("delete " + key, bound, e);
        } catch (SdkException e) {
            throw failure("delete " + key, e);
        }
    }

    /**
     * Deletes the keys (containers, index objects, recipes), a few at a time; a key that is
     * already gone is no error. In a bucket with Object Lock (once {@link BucketLocks#enabled()}
     * found it) every version of each key is deleted, not hidden behind a delete marker, so that
     * its bytes are freed; the keys of which the bucket kept a version because its retention still
     * holds are returned, for a later attempt. One request per key rather than a multi-object
     * delete: S3Proxy refuses the checksum header the SDK sends with the latter, and deletions are
     * not billed.
     */
    public List<String> deleteAll(Collection<String> keys) throws BucketException {
        return deleteAll(keys, false);
    }

    /** As {@link #deleteAll(Collection)}, bypassing governance retention if {@code bypassGovernance} (and the credentials may). */
    List<String> deleteAll(Collection<String> keys, boolean bypassGovernance) throws BucketException {
        List<String> order = new ArrayList<>(keys);
        List<Future<Boolean>> pending = new ArrayList<>();
        for (String k : order) {
            pending.add(deleters.submit(() -> {
                if (locks.versioned()) {
                    return locks.deleteVersions(k, bypassGovernance, limit);
                }
                delete(k);
                return true;
            }));
        }
        List<Boolean> deleted = Futures.awaitAll(pending,
                c -> c instanceof BucketException b ? b : new BucketException(BucketException.Kind.FAILED, "delete: " + c, c),
                e -> new BucketException(BucketException.Kind.FAILED, "interrupted while deleting", e));
        List<String> kept = new ArrayList<>();
        for (int i = 0; i < deleted.size(); i++) {
            if (!deleted.get(i)) {
                kept.add(order.get(i));
            }
        }
        if (!kept.isEmpty()) {
            counters.retainedDeletes(kept.size());
        }
        return kept;
    }

    /**
     * Whether the server honours If-None-Match and If-Match on PUT (AWS S3 and MinIO do; S3Proxy
     * 2.6 does not), found once by trying: two creations of one fresh key, the second must be refused.
     */
    public boolean conditionalWrites() throws BucketException {
        Boolean known = conditionalWrites;
        if (known != null) {
            return known;
        }
        String key = "probe/conditional-" + UUID.randomUUID();
        boolean refused;
        try {
            putIfAbsent(key, new byte[] {1});
            try {
                putIfAbsent(key, new byte[] {2});
                refused = false;
            } catch (BucketException e) {
                if (e.kind() != BucketException.Kind.CONFLICT) {
                    throw e;
                }
                refused = true;
            }
        } finally {
            delete(key);
        }
        conditionalWrites = refused;
        return refused;
    }

    BucketException failure(String what, SdkException e) {
        if (e instanceof S3Exception s) {
            String code = code(s);
            int status = s.statusCode();
            if ("NoSuchBucket".equals(code)) {
                return new BucketException(BucketException.Kind.NO_BUCKET, "bucket " + settings.bucket() + " does not exist at "
                        + where() + ": create it, or set storage.bucket to an existing one", e);
            }
            if ("BadDigest".equals(code)) {
                return new BucketException(BucketException.Kind.FAILED, what + ": " + where() + " refused the content as not matching its MD5:"
                        + " the local copy changed after it was written; check the cache disk", e);
            }
            if (status == 412 || status == 409 && "ConditionalRequestConflict".equals(code)) {
                return new BucketException(BucketException.Kind.CONFLICT, what + ": changed by someone else meanwhile", e);
            }
            if (status == 403 || "InvalidAccessKeyId".equals(code) || "SignatureDoesNotMatch".equals(code) || "AccessDenied".equals(code)) {
                return new BucketException(BucketException.Kind.DENIED, what + ": refused by " + where() + " (" + status + " " + code
                        + "): check the credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or the instance role)"
                        + " and that they may use the bucket", e);
            }
            Integer attempts = s.numAttempts();
            return new BucketException(BucketException.Kind.FAILED, what + ": " + where() + " answered " + status + " " + code
                    + (attempts != null && attempts > 1 ? " (tried " + attempts + " times)" : ""), e);
        }
        String root = rootMessage(e);
        if (root.contains("Unable to load credentials") || root.contains("credentials")) {
            return new BucketException(BucketException.Kind.DENIED, what + ": no AWS credentials found: set AWS_ACCESS_KEY_ID and"
                    + " AWS_SECRET_ACCESS_KEY, or AWS_PROFILE with a profile file, or run with an instance role", e);
        }
        if (e instanceof SdkClientException) {
            return new BucketException(BucketException.Kind.UNREACHABLE, what + ": cannot reach " + where() + ": " + root, e);
        }
        return new BucketException(BucketException.Kind.FAILED, what + ": " + root, e);
    }

    private String where() {
        return settings.endpoint() == null ? "AWS S3 (" + settings.region() + ")" : settings.endpoint().toString();
    }

    static String code(S3Exception e) {
        return e.awsErrorDetails() == null ? "" : String.valueOf(e.awsErrorDetails().errorCode());
    }

    /** The innermost message: the one that says what happened (refused, reset, timed out). */
    private static String rootMessage(Throwable e) {
        String msg = e.getMessage();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                msg = t.getMessage();
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return msg == null ? "no detail" : msg;
    }

    private static Instant httpDate(String v) {
        try {
            return java.time.ZonedDateTime.parse(v, java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        } catch (java.time.format.DateTimeParseException e) {
            return Instant.now();
        }
    }

    static String unquoted(String etag) {
        if (etag == null) {
            return null;
        }
        return etag.length() >= 2 && etag.startsWith("\"") && etag.endsWith("\"") ? etag.substring(1, etag.length() - 1) : etag;
    }

    private static String quoted(String etag) {
        return etag.startsWith("\"") ? etag : "\"" + etag + "\"";
    }

    /** The ETag a single-part upload of {@code data} gets from a server that does not encrypt it. */
    static String md5Hex(byte[] data) {
        return HexFormat.of().formatHex(md5(data));
    }

    static byte[] md5(byte[] data) {
        MessageDigest md = newMd5();
        md.update(data);
        return md.digest();
    }

    static byte[] md5(Path file) throws IOException {
        MessageDigest md = newMd5();
        byte[] buf = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(file)) {
            int n;
            while ((n = in.read(buf)) > 0) {
                md.update(buf, 0, n);
            }
        }
        return md.digest();
    }

    static MessageDigest newMd5() {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no MD5", e);
        }
    }

    @Override
    public void close() {
        if (!owner) {
            return; // a view: the bucket it came from closes the clients and the deleters
        }
        deleters.shutdownNow();
        s3.close();
        quickClient.close();
    }
}
