package io.gpdedup.plugin.api;

import java.util.List;
import java.util.Locale;

/**
 * One option a plugin accepts under {@code options:} in its config. Values are strings in the YAML
 * (gpbackup's map is {@code map[string]string}); the spec says how to read and check them.
 */
public record OptionSpec(String name, Type type, boolean required, String defaultValue, List<String> choices, String help) {
    public enum Type { STRING, ON_OFF, INTEGER, SIZE, CHOICE, ABSOLUTE_PATH }

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
                String v = value.toLowerCase(Locale.ROOT);
                return v.equals("on") || v.equals("off") || v.equals("true") || v.equals("false")
                        ? null : "expected \"on\" or \"off\"";
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
