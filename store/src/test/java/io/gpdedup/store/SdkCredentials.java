package io.gpdedup.store;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A bucket's credentials for the store code a test runs in its own JVM: the AWS SDK's default chain
 * reads these system properties first (a store process reads its environment, which a test JVM
 * cannot set for itself). Each test sets them and clears them after.
 */
public final class SdkCredentials implements BeforeEachCallback, AfterEachCallback {
    private final String identity;
    private final String credential;

    public SdkCredentials(String identity, String credential) {
        this.identity = identity;
        this.credential = credential;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        System.setProperty("aws.accessKeyId", identity);
        System.setProperty("aws.secretAccessKey", credential);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        System.clearProperty("aws.accessKeyId");
        System.clearProperty("aws.secretAccessKey");
    }
}
