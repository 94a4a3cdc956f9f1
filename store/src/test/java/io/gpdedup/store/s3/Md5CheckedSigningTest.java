package io.gpdedup.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignRequest;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import org.junit.jupiter.api.Test;

/**
 * The SDK's own SigV4 signer through the store's scheme: which bodies go unsigned on plain http.
 * That S3Proxy accepts the result is what every other S3 test shows (they all run over http).
 */
class Md5CheckedSigningTest {
    private static final String SHA256_HEADER = "x-amz-content-sha256";

    private static SignedRequest sign(String endpoint, boolean withMd5) {
        SdkHttpRequest.Builder http = SdkHttpRequest.builder().method(SdkHttpMethod.PUT).uri(URI.create(endpoint + "/bucket/key"))
                .putHeader("Content-Length", "3");
        if (withMd5) {
            http.putHeader("Content-MD5", "UrgGUMYmnDvH0UeIMTY0DA==");
        }
        SignRequest<AwsCredentialsIdentity> request = SignRequest.builder(AwsCredentialsIdentity.create("id", "secret"))
                .request(http.build())
                .payload(ContentStreamProvider.fromByteArray(new byte[] {1, 2, 3}))
                .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, "s3")
                .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
                .putProperty(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, false)
                .build();
        return new Md5CheckedSigning().signer().sign(request);
    }

    @Test
    void aBodyWithContentMd5GoesUnsignedOverHttpOnTheSameSchemeHostAndPort() {
        SignedRequest signed = sign("http://127.0.0.1:9000", true);
        assertEquals("UNSIGNED-PAYLOAD", signed.request().firstMatchingHeader(SHA256_HEADER).orElseThrow());
        assertEquals("http", signed.request().protocol());
        assertEquals(9000, signed.request().port());
        assertEquals("127.0.0.1:9000", signed.request().firstMatchingHeader("Host").orElseThrow());
        assertTrue(signed.request().firstMatchingHeader("Authorization").orElseThrow().contains("content-md5"),
                "the Content-MD5 the server checks the body against is signed");

        SignedRequest standardPort = sign("http://s3.example", true);
        assertEquals("UNSIGNED-PAYLOAD", standardPort.request().firstMatchingHeader(SHA256_HEADER).orElseThrow());
        assertEquals(80, standardPort.request().port());
        assertEquals("s3.example", standardPort.request().firstMatchingHeader("Host").orElseThrow());
    }

    @Test
    void aBodyWithoutContentMd5IsSignedOverHttp() {
        String hash = sign("http://127.0.0.1:9000", false).request().firstMatchingHeader(SHA256_HEADER).orElseThrow();
        assertTrue(hash.matches("[0-9a-f]{64}"), hash);
    }
}
