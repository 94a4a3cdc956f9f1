package io.gpdedup.plugin.api;

/** A failure the user must see: its message goes to stderr and the process exits non-zero. */
public class PluginException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public PluginException(String message) {
        super(message);
    }

    public PluginException(String message, Throwable cause) {
        super(message, cause);
    }
}
