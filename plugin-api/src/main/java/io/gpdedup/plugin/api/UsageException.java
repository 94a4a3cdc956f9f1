package io.gpdedup.plugin.api;

/** Wrong command or argument count: the dispatcher prints usage and exits with status 2. */
final class UsageException extends PluginException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
        super(message);
    }
}
