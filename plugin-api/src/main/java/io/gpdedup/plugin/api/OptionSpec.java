package io.gpdedup.plugin.api;

import io.gpdedup.protocol.naming.Sizes;
import java.util.List;
import java.util.Locale;

/**
 * One option a plugin accepts under {@code options:} in its config. Values are strings in the YAML
 * (gpbackup's map is {@code map[string]string}); the spec says how to read and check them.
 */
public record OptionSpec(String name, Type type, boolean required, String defaultValue, List<String> choices, String help) {
    public enum Type { STRING, ON_OFF, INTEGER, SIZE, CHOICE, ABSOLUTE_PATH }

    /** The two values of an {@link Type#ON_OFF} option. */
    public static final String ON = "on";
    public static final String OFF = "off";

    public static OptionSpec required(String name, Type type, String help) {
        return new OptionSpec(name, type, true, null, List.of(), help);
    }

    public static OptionSpec optional(String name, Type type, String defaultValue, String help) {
        return new OptionSpec(name, type, false, defaultValue, List.of(), help);
    }

    public static OptionSpec choice(String name, String defaultValue, List<String> choices, String help) {
        return new OptionSpec(name, Type.CHOICE, false, defaultValue, List.copyOf(choices), help);
    }

    /** Checks one value; returns the message to show, or null when it is acceptable. */
    String problemWith(String value) {
        switch (type) {
            case ON_OFF:
                // gpbackup compares these texts exactly (restore_subset, password_encryption): "ON" or
                // "true" would look on to us and off to gpbackup, so only the two words pass.
                return value.equals(ON) || value.equals(OFF) ? null : "allowed values are \"on\" and \"off\" (exactly, in lower case)";
            case INTEGER:
                try {
                    Long.parseLong(value.trim());
                    return null;
                } catch (NumberFormatException e) {
                    return "expected an integer";
                }
            case SIZE:
                try {
                    Sizes.parse(value);
                    return null;
                } catch (IllegalArgumentException e) {
                    return e.getMessage();
                }
            case CHOICE:
                return choices.contains(value.toLowerCase(Locale.ROOT)) ? null : "expected one of " + choices;
            case ABSOLUTE_PATH:
                return value.startsWith("/") ? null : "expected an absolute path";
            default:
                return null;
        }
    }
}
