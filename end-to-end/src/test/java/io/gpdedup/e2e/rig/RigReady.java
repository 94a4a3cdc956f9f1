package io.gpdedup.e2e.rig;

import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Skips every test of a class, with the reason, where this machine has no rig
 * ({@link Rig#assumeReady()}): per test, because an assumption that fails before all tests shows
 * in the surefire report as no tests at all.
 */
final class RigReady implements BeforeEachCallback {
    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        Rig.assumeReady();
    }
}
