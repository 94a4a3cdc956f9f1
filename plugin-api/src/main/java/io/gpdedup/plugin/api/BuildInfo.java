package io.gpdedup.plugin.api;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The version the build stamped in (project version plus git commit, scripts/lib/build-info): what the plugins print. */
final class BuildInfo {
    private BuildInfo() {
    }

    static String release() {
        Properties p = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream("/gpdedup-build.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            return "unknown";
        }
        return p.getProperty("version", "unknown");
    }
}
