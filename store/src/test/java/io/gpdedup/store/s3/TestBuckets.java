package io.gpdedup.store.s3;

import io.gpdedup.testsupport.S3Server;
import java.net.URI;
import java.nio.file.Path;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/** Settings for a fresh bucket on the test JVM's S3 server (S3Proxy), with its credentials. */
public final class TestBuckets {
    private TestBuckets() {
    }

    /** A new bucket on the shared server, reached directly. */
    public static S3Settings fresh(String hint, Path cacheDir) {
        S3Server server = S3Server.shared();
        return at(server.endpoint(), server.newBucket(hint), cacheDir);
    }

    /** Settings for {@code bucket} reached at {@code endpoint} (the server itself, or a fault proxy in front of it). */
    public static S3Settings at(URI endpoint, String bucket, Path cacheDir) {
        return S3Settings.of(endpoint, bucket, "site1/", cacheDir)
                .withCredentials(StaticCredentialsProvider.create(AwsBasicCredentials.create(S3Server.IDENTITY, S3Server.CREDENTIAL)));
    }
}
