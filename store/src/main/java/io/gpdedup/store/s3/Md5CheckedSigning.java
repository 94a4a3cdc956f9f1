package io.gpdedup.store.s3;

import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.http.auth.aws.scheme.AwsV4AuthScheme;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.scheme.AuthScheme;
import software.amazon.awssdk.http.auth.spi.signer.AsyncSignRequest;
import software.amazon.awssdk.http.auth.spi.signer.AsyncSignedRequest;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignRequest;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.IdentityProvider;
import software.amazon.awssdk.identity.spi.IdentityProviders;

/**
 * SigV4 as the SDK signs it, except that a request whose body carries a Content-MD5 leaves the
 * body out of the signature on plain {@code http} too (UNSIGNED-PAYLOAD), as the SDK always does on
 * {@code https}. On {@code http} the SDK would hash every uploaded byte with SHA-256 for the
 * signature, a second pass over each container after the MD5 the store computes as it spools.
 * The Content-MD5 header is signed, and the server refuses a body that does not match it, so a
 * body changed on the way (or on the spool disk) is still refused; what is given up is only the
 * SHA-256 binding of the body to the signature, which on {@code http} stands against someone who
 * could both rewrite the traffic and find a second body with the same MD5.
 */
final class Md5CheckedSigning implements AuthScheme<AwsCredentialsIdentity> {
    private static final int HTTP_PORT = 80;
    private static final int HTTPS_PORT = 443;
    private final AwsV4AuthScheme sigV4 = AwsV4AuthScheme.create();
    private final HttpSigner<AwsCredentialsIdentity> signer = new Signer(sigV4.signer());

    @Override
    public String schemeId() {
        return AwsV4AuthScheme.SCHEME_ID;
    }

    @Override
    public IdentityProvider<AwsCredentialsIdentity> identityProvider(IdentityProviders providers) {
        return sigV4.identityProvider(providers);
    }

    @Override
    public HttpSigner<AwsCredentialsIdentity> signer() {
        return signer;
    }

    private record Signer(AwsV4HttpSigner sdk) implements HttpSigner<AwsCredentialsIdentity> {
        @Override
        public SignedRequest sign(SignRequest<? extends AwsCredentialsIdentity> request) {
            SdkHttpRequest http = request.request();
            if (!"http".equals(http.protocol()) || request.payload().isEmpty() || http.firstMatchingHeader("Content-MD5").isEmpty()) {
                return sdk.sign(request);
            }
            // The signer decides on payload signing by the scheme alone, which the signature does
            // not cover: sign the request as if it went over https (on the same Host), send it over http.
            SignedRequest signed = sdk.sign(asHttps(request, http));
            return signed.toBuilder().request(signed.request().toBuilder().protocol("http").port(http.port()).build()).build();
        }

        private static <T extends AwsCredentialsIdentity> SignRequest<T> asHttps(SignRequest<T> request, SdkHttpRequest http) {
            int port = http.port() == HTTP_PORT ? HTTPS_PORT : http.port(); // a Host header without a port stays so
            return request.toBuilder()
                    .request(http.toBuilder().protocol("https").port(port).build())
                    .putProperty(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, false)
                    .build();
        }

        @Override
        public CompletableFuture<AsyncSignedRequest> signAsync(AsyncSignRequest<? extends AwsCredentialsIdentity> request) {
            return sdk.signAsync(request); // the store's clients are synchronous
        }
    }
}
