package io.gpdedup.plugin.api;

import io.gpdedup.protocol.naming.Sizes;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A plugin's options after validation against its declared {@link OptionSpec}s. Unknown options are
 * rejected (a typo must not be silently ignored), except the keys gpbackup itself adds to every copy
 * of the config: {@code pgport}, {@code backup_plugin_version}, and {@code <plugin name>: <secret>}.
 */
public final class PluginOptions {
    /** Accepted for every plugin: gpbackup injects the first two; the third is ours (plugin-api logging). */
    public static final String PGPORT = "pgport";
    static final String BACKUP_PLUGIN_VERSION = "backup_plugin_version";
    static final String LOG_DIRECTORY = "log_directory";

    private static final OptionSpec LOG_DIRECTORY_SPEC = OptionSpec.optional(LOG_DIRECTORY, OptionSpec.Type.ABSOLUTE_PATH, null,
            "directory for the plugin log (default ~/gpAdminLogs)");

    private final Path file;
    private final Map<String, String> values;
    private final Map<String, OptionSpec> specs;

    private PluginOptions(Path file, Map<String, String> values, Map<String, OptionSpec> specs) {
        this.file = file;
        this.values = values;
        this.specs = specs;
    }

    public static PluginOptions validate(PluginConfig config, String pluginName, List<OptionSpec> declared) {
        Map<String, OptionSpec> specs = new LinkedHashMap<>();
        for (OptionSpec s : declared) {
            specs.put(s.name(), s);
        }
        specs.putIfAbsent(LOG_DIRECTORY, LOG_DIRECTORY_SPEC);
        Set<String> injected = Set.of(PGPORT, BACKUP_PLUGIN_VERSION, pluginName);
        Map<String, String> values = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : config.options().entrySet()) {
            String key = e.getKey();
            OptionSpec spec = specs.get(key);
            if (spec == null) {
                if (injected.contains(key)) {
                    values.put(key, e.getValue());
                    continue;
                }
                throw PluginConfig.error(config.file(), config.lineOf(key),
                        "unknown option '" + key + "' for " + pluginName + " (accepted: " + String.join(", ", specs.keySet()) + ")");
            }
            String problem = spec.problemWith(e.getValue());
            if (problem != null) {
                throw PluginConfig.error(config.file(), config.lineOf(key),
                        "option '" + key + "' has invalid value '" + e.getValue() + "': " + problem);
            }
            values.put(key, e.getValue());
        }
        for (OptionSpec spec : specs.values()) {
            if (spec.required() && (!values.containsKey(spec.name()) || values.get(spec.name()).isBlank())) {
                throw new PluginException(config.file() + ": missing required option '" + spec.name() + "' (" + spec.help() + ")");
            }
        }
        return new PluginOptions(config.file(), values, specs);
    }

    /** The config file these options were read from, as the call named it. */
    public Path file() {
        return file;
    }

    /** The value as written, or the declared default; empty when neither exists. */
    public Optional<String> get(String name) {
        String v = values.get(name);
        if (v == null) {
            OptionSpec spec = specs.get(name);
            v = spec == null ? null : spec.defaultValue();
        }
        return Optional.ofNullable(v);
    }

    public String require(String name) {
        return get(name).orElseThrow(() -> new PluginException("option '" + name + "' is required"));
    }

    /** Whether an on/off option is "on" (validation admits nothing but "on" and "off"). */
    public boolean isOn(String name) {
        return get(name).orElse(OptionSpec.OFF).equals(OptionSpec.ON);
    }

    public long size(String name) {
        return Sizes.parse(require(name));
    }

    public long integer(String name) {
        return Long.parseLong(require(name).trim());
    }

    /** Whether the user wrote this option (as opposed to a default). */
    public boolean isSet(String name) {
        return values.containsKey(name);
    }
}
