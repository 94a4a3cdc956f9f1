package io.gpdedup.plugin.api;

import java.nio.file.Path;
import java.util.OptionalInt;

/** One setup or cleanup hook call: {@code <hook> CFG DIR <scope> [<content id>]}. */
public record Hook(Kind kind, Path localBackupDirectory, HookScope scope, OptionalInt contentId) {
    public enum Kind { SETUP_FOR_BACKUP, SETUP_FOR_RESTORE, CLEANUP_FOR_BACKUP, CLEANUP_FOR_RESTORE }

    /** Content ids arrive as {@code "-1"} with literal quote characters, or bare; both are accepted. */
    static OptionalInt parseContentId(String raw) {
        String s = raw;
        if (s.length() >= 2 && s.startsWith("\"") && s.endsWith("\"")) {
            s = s.substring(1, s.length() - 1);
        }
        try {
            int id = Integer.parseInt(s);
            if (id < -1) {
                throw new NumberFormatException();
            }
            return OptionalInt.of(id);
        } catch (NumberFormatException e) {
            throw new PluginException("invalid content id " + raw + ": expected an integer >= -1, optionally in double quotes");
        }
    }

    public boolean isBackup() {
        return kind == Kind.SETUP_FOR_BACKUP || kind == Kind.CLEANUP_FOR_BACKUP;
    }

    public boolean isSetup() {
        return kind == Kind.SETUP_FOR_BACKUP || kind == Kind.SETUP_FOR_RESTORE;
    }
}
