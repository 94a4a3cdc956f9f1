package io.gpdedup.store;

import java.util.MissingResourceException;
import java.util.ResourceBundle;

/** The version the build stamped in (project version plus git commit): what gpdedup-store and gpdedup-bench print. */
public final class BuildVersion {
    private BuildVersion() {
    }

    public static String get() {
        try {
            return ResourceBundle.getBundle("gpdedup-build").getString("version");
        } catch (MissingResourceException e) {
            return "unknown";
        }
    }
}
