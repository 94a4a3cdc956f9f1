package io.gpdedup.plugin.api;

import java.util.MissingResourceException;
import java.util.ResourceBundle;

/** The version the build stamped in (project version plus git commit, scripts/lib/build-info): what the plugins print. */
final class BuildInfo {
    private BuildInfo() {
    }

    static String release() {
        try {
            return ResourceBundle.getBundle("gpdedup-build").getString("version");
        } catch (MissingResourceException e) {
            return "unknown";
        }
    }
}
