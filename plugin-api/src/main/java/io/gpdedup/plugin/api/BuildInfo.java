package io.gpdedup.plugin.api;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The release number stamped in at build time. */
final class BuildInfo {
    private BuildInfo() {
    }

    static String release() {
        Properties p = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream("/gpdedup-version.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            return "unknown";
        }
        return p.getProperty("release", "unknown");
    }
}
