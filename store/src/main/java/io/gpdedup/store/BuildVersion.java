package io.gpdedup.store;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The version the build stamped in (project version plus git commit): what gpdedup-store and gpdedup-bench print. */
public final class BuildVersion {
    private BuildVersion() {
    }

    public static String get() {
        Properties p = new Properties();
        try (InputStream in = BuildVersion.class.getResourceAsStream("/gpdedup-build.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            return "unknown";
        }
        return p.getProperty("version", "unknown");
    }
}
