package io.gpdedup.store.s3;

import io.gpdedup.testsupport.MotoServer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ObjectLockMode;
import software.amazon.awssdk.services.s3.model.ObjectVersion;

/**
 * Buckets on the test JVM's moto server (Object Lock), and a plain S3 client with the store's own
 * credentials, to look at and try to delete what the store wrote, as anyone holding them could.
 */
public final class MotoBuckets {
    private MotoBuckets() {
    }

    /** Settings for a new bucket on the shared moto server; {@code objectLock}: created with Object Lock enabled. */
    public static S3Settings fresh(String hint, boolean objectLock, Path cacheDir) {
        MotoServer server = MotoServer.shared();
        return S3Settings.of(server.endpoint(), server.newBucket(hint, objectLock), "site1/", cacheDir)
                .withCredentials(StaticCredentialsProvider.create(AwsBasicCredentials.create(MotoServer.IDENTITY, MotoServer.CREDENTIAL)));
    }

    /** A client of the moto server with the store's credentials. */
    public static S3Client client() {
        return S3Client.builder().endpointOverride(MotoServer.shared().endpoint()).region(Region.US_EAST_1).forcePathStyle(true)
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(MotoServer.IDENTITY, MotoServer.CREDENTIAL)))
                .build();
    }

    /** Every key (full, with the prefix) under {@code prefix} with its current version. */
    public static List<String> keys(S3Client s3, String bucket, String prefix) {
        List<String> out = new ArrayList<>();
        s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents().forEach(o -> out.add(o.key()));
        return out;
    }

    /** Every version (current or not) of the keys under {@code prefix}. */
    public static List<ObjectVersion> versions(S3Client s3, String bucket, String prefix) {
        return new ArrayList<>(s3.listObjectVersions(b -> b.bucket(bucket).prefix(prefix)).versions());
    }

    /** The retention lock mode of a key's current version (HEAD: moto answers no GetObjectRetention); null when it has none. */
    public static ObjectLockMode mode(S3Client s3, String bucket, String key) {
        return s3.headObject(b -> b.bucket(bucket).key(key)).objectLockMode();
    }

    /** When the retention of a key's current version ends; {@link Instant#EPOCH} when it has none. */
    public static Instant retainedUntil(S3Client s3, String bucket, String key) {
        HeadObjectResponse r = s3.headObject(b -> b.bucket(bucket).key(key));
        return r.objectLockRetainUntilDate() == null ? Instant.EPOCH : r.objectLockRetainUntilDate();
    }
}
