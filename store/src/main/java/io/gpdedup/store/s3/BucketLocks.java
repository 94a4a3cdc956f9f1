package io.gpdedup.store.s3;

import io.gpdedup.protocol.model.RetentionLock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.DeleteMarkerEntry;
import software.amazon.awssdk.services.s3.model.GetObjectLockConfigurationResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectVersionsRequest;
import software.amazon.awssdk.services.s3.model.ListObjectVersionsResponse;
import software.amazon.awssdk.services.s3.model.ObjectLockEnabled;
import software.amazon.awssdk.services.s3.model.ObjectLockMode;
import software.amazon.awssdk.services.s3.model.ObjectLockRetentionMode;
import software.amazon.awssdk.services.s3.model.ObjectVersion;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * S3 Object Lock on the store's bucket (docs/s3.md, section 7): whether the bucket has it, the
 * retention of an object, its extension, and deletions of object versions. A bucket with Object
 * Lock is versioned: a delete without a version id only hides the object behind a delete marker
 * (and always succeeds), so the store deletes the versions themselves there, which frees their
 * bytes, or is refused while a version's retention holds.
 */
final class BucketLocks {
    private final Bucket bucket;
    private final S3Client s3;
    private volatile Boolean enabled;

    BucketLocks(Bucket bucket, S3Client s3) {
        this.bucket = bucket;
        this.s3 = s3;
    }

    /**
     * Whether the bucket has Object Lock enabled (GetObjectLockConfiguration, asked once). A
     * server without Object Lock (S3Proxy's filesystem backend) counts as a bucket without it.
     */
    boolean enabled() throws BucketException {
        Boolean known = enabled;
        if (known != null) {
            return known;
        }
        boolean on;
        try {
            GetObjectLockConfigurationResponse r = s3.getObjectLockConfiguration(b -> b.bucket(bucket.settings().bucket()));
            on = r.objectLockConfiguration() != null && r.objectLockConfiguration().objectLockEnabled() == ObjectLockEnabled.ENABLED;
        } catch (S3Exception e) {
            if (!lacksObjectLock(e)) {
                throw bucket.failure("read the object lock configuration of bucket " + bucket.settings().bucket(), e);
            }
            on = false;
        } catch (SdkException e) {
            throw bucket.failure("read the object lock configuration of bucket " + bucket.settings().bucket(), e);
        }
        enabled = on;
        return on;
    }

    /** Whether deletions go by version: known once {@link #enabled()} found Object Lock on. */
    boolean versioned() {
        return Boolean.TRUE.equals(enabled);
    }

    /** The bucket answers a configuration it does not have, or a request it does not implement. */
    private static boolean lacksObjectLock(S3Exception e) {
        String code = Bucket.code(e);
        return "ObjectLockConfigurationNotFoundError".equals(code) || "NotImplemented".equals(code) || e.statusCode() == 501
                || e.statusCode() == 404 && !"NoSuchBucket".equals(code);
    }

    /** A PUT that the bucket holds as {@code lock} says; unchanged for no lock. */
    static PutObjectRequest.Builder retained(PutObjectRequest.Builder put, RetentionLock lock) {
        if (lock.mode() == RetentionLock.Mode.NONE) {
            return put;
        }
        return put.objectLockMode(lock.mode() == RetentionLock.Mode.COMPLIANCE ? ObjectLockMode.COMPLIANCE : ObjectLockMode.GOVERNANCE)
                .objectLockRetainUntilDate(until(lock));
    }

    /** A bucket's retention dates are kept to the second: rounded up, never ending before the lock. */
    private static Instant until(RetentionLock lock) {
        return Instant.ofEpochSecond(Math.floorDiv(lock.untilMillis() + 999, 1000));
    }

    /**
     * Sets the retention of the object's current version to {@code lock} (PutObjectRetention).
     * The caller never asks for less than the object has: a bucket refuses a shorter compliance
     * retention, and a shorter governance one without the bypass permission the store should not have.
     */
    void extend(String key, RetentionLock lock) throws BucketException {
        try {
            s3.putObjectRetention(b -> b.bucket(bucket.settings().bucket()).key(bucket.fullKey(key))
                    .retention(r -> r.mode(lock.mode() == RetentionLock.Mode.COMPLIANCE ? ObjectLockRetentionMode.COMPLIANCE
                            : ObjectLockRetentionMode.GOVERNANCE).retainUntilDate(until(lock))));
        } catch (SdkException e) {
            throw bucket.failure("extend the retention of " + key + " to " + until(lock), e);
        }
    }

    /**
     * The retention of the object's current version ({@code versionId} null) or of one version;
     * NONE when it has none or is gone. Read from a HEAD, whose reply carries it (to credentials
     * that may read retentions): moto's server answers no GetObjectRetention.
     */
    RetentionLock of(String key, String versionId) throws BucketException {
        try {
            HeadObjectResponse r = s3.headObject(b -> b.bucket(bucket.settings().bucket()).key(bucket.fullKey(key)).versionId(versionId));
            if (r.objectLockMode() == null || r.objectLockRetainUntilDate() == null) {
                return RetentionLock.NONE;
            }
            RetentionLock.Mode mode = r.objectLockMode() == ObjectLockMode.COMPLIANCE ? RetentionLock.Mode.COMPLIANCE
                    : RetentionLock.Mode.GOVERNANCE;
            return new RetentionLock(mode, Math.max(1, r.objectLockRetainUntilDate().toEpochMilli()));
        } catch (S3Exception e) {
            String code = Bucket.code(e);
            if (e.statusCode() == 404 && !"NoSuchBucket".equals(code) || e.statusCode() == 405) {
                return RetentionLock.NONE; // gone, or (a delete marker) never held
            }
            throw bucket.failure("read the retention of " + key, e);
        } catch (SdkException e) {
            throw bucket.failure("read the retention of " + key, e);
        }
    }

    /**
     * Deletes every version (and delete marker) of exactly {@code key}; false when the bucket
     * refused a version because its retention still holds. {@code bypassGovernance} asks the
     * bucket to bypass governance retention, which it grants only to credentials allowed to. A refusal for any other reason (the
     * credentials may not delete versions) is an error. Each version's deletion gets the time
     * {@code limit} gives it ({@code null}: no limit but its attempts').
     */
    boolean deleteVersions(String key, boolean bypassGovernance, Bucket.WriteLimit limit) throws BucketException {
        String full = bucket.fullKey(key);
        List<String> versions;
        try {
            versions = versionIds(full, true);
        } catch (SdkException e) {
            throw bucket.failure("list the versions of " + key, e);
        }
        boolean all = true;
        for (String version : versions) {
            Duration bound = limit == null ? null : limit.remaining();
            try {
                s3.deleteObject(b -> {
                    b.bucket(bucket.settings().bucket()).key(full).versionId(version)
                            .bypassGovernanceRetention(bypassGovernance ? Boolean.TRUE : null);
                    if (bound != null) {
                        b.overrideConfiguration(o -> o.apiCallTimeout(bound));
                    }
                });
            } catch (ApiCallTimeoutException e) {
                throw bucket.outOfTime("delete " + key + " version " + version, bound, e);
            } catch (S3Exception e) {
                // By the version's retention, not this machine's clock: the bucket's clock decides.
                if (e.statusCode() != 403 || of(key, version).mode() == RetentionLock.Mode.NONE) {
                    throw bucket.failure("delete " + key + " version " + version, e);
                }
                all = false; // held by its retention: a later attempt deletes it
            } catch (SdkException e) {
                throw bucket.failure("delete " + key + " version " + version, e);
            }
        }
        return all;
    }

    /**
     * Deletes every version of exactly {@code key} but the latest: after a key rotation, an earlier
     * keys object would still open the unit with the old key; after a conversion, an earlier recipe
     * is plaintext. False when the bucket refused a version because its retention still holds.
     */
    boolean deleteOlderVersions(String key) throws BucketException {
        String full = bucket.fullKey(key);
        List<String> older;
        try {
            older = versionIds(full, false);
        } catch (SdkException e) {
            throw bucket.failure("delete the earlier versions of " + key, e);
        }
        boolean all = true;
        for (String version : older) {
            try {
                s3.deleteObject(b -> b.bucket(bucket.settings().bucket()).key(full).versionId(version));
            } catch (S3Exception e) {
                if (e.statusCode() != 403 || of(key, version).mode() == RetentionLock.Mode.NONE) {
                    throw bucket.failure("delete the earlier versions of " + key, e);
                }
                all = false; // held by its retention until it ends
            } catch (SdkException e) {
                throw bucket.failure("delete the earlier versions of " + key, e);
            }
        }
        return all;
    }

    /**
     * The version ids of exactly the full key {@code full}, in the bucket's order: with {@code all}
     * every version and delete marker, else only the versions that are not the latest.
     */
    private List<String> versionIds(String full, boolean all) {
        List<String> ids = new ArrayList<>();
        ListObjectVersionsRequest.Builder req = ListObjectVersionsRequest.builder().bucket(bucket.settings().bucket()).prefix(full);
        String keyMarker = null;
        String versionMarker = null;
        do {
            ListObjectVersionsResponse r = s3.listObjectVersions(req.keyMarker(keyMarker).versionIdMarker(versionMarker).build());
            for (ObjectVersion v : r.versions()) {
                if (v.key().equals(full) && (all || !Boolean.TRUE.equals(v.isLatest()))) {
                    ids.add(v.versionId());
                }
            }
            for (DeleteMarkerEntry m : r.deleteMarkers()) {
                if (all && m.key().equals(full)) {
                    ids.add(m.versionId());
                }
            }
            boolean more = Boolean.TRUE.equals(r.isTruncated());
            keyMarker = more ? r.nextKeyMarker() : null;
            versionMarker = more ? r.nextVersionIdMarker() : null;
        } while (keyMarker != null);
        return ids;
    }
}
