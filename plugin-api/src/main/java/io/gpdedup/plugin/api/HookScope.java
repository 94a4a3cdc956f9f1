package io.gpdedup.plugin.api;

import java.util.Locale;

/**
 * Where a setup/cleanup hook runs. Greenplum 6 sends {@code master}, Cloudberry and plugin_test.sh
 * send {@code coordinator}: both mean the coordinator host, once per backup.
 */
public enum HookScope {
    COORDINATOR,
    /** One call per primary segment on the host, in parallel (not once per host as documented). */
    SEGMENT_HOST,
    SEGMENT;

    public static HookScope parse(String word) {
        switch (word.toLowerCase(Locale.ROOT)) {
            case "master":
            case "coordinator":
                return COORDINATOR;
            case "segment_host":
                return SEGMENT_HOST;
            case "segment":
                return SEGMENT;
            default:
                throw new PluginException("unknown hook scope '" + word + "': expected master, coordinator, segment_host or segment");
        }
    }
}
