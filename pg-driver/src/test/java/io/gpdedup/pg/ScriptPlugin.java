package io.gpdedup.pg;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A minimal gpbackup storage plugin in bash over a directory, so this module can test backup and
 * restore logic without the distribution: keys are the last four path components; subsets are cut
 * with dd. The real plugins are exercised by the end-to-end tests.
 */
final class ScriptPlugin {
    private static final String SCRIPT = """
            #!/bin/bash
            set -euo pipefail
            cmd=$1; cfg=$2; path=${3:-}
            root=$(sed -n 's/^ *directory: *//p' "$cfg")
            key() { local IFS=/; set -- $1; shift $(($# - 4)); echo "$root/$1/$2/$3/$4"; }
            [ -n "${FAIL_ON:-}" ] && [ "$cmd" = "$FAIL_ON" ] && { cat > /dev/null; echo "injected failure in $cmd" >&2; exit 3; }
            [ -n "${FAIL_EARLY:-}" ] && [ "$cmd" = "$FAIL_EARLY" ] && { echo "cannot reach the store" >&2; exit 4; }
            case $cmd in
              backup_data) k=$(key "$path"); mkdir -p "$(dirname "$k")"; cat > "$k.tmp"; mv "$k.tmp" "$k" ;;
              restore_data) cat "$(key "$path")" ;;
              backup_file) k=$(key "$path"); mkdir -p "$(dirname "$k")"; cp "$path" "$k" ;;
              restore_file) mkdir -p "$(dirname "$path")"; cp "$(key "$path")" "$path" ;;
              restore_data_subset)
                k=$(key "$path"); read -r n rest < "$4"; set -- $rest
                while [ $# -gt 0 ]; do dd if="$k" bs=65536 skip="$1" count=$(($2 - $1)) iflag=skip_bytes,count_bytes status=none; shift 2; done ;;
              *) echo "unsupported: $cmd" >&2; exit 1 ;;
            esac
            """;

    private ScriptPlugin() {
    }

    /**
     * Writes the plugin and its config under {@code dir}; {@code failOn} names a command that must
     * fail after reading its input, or, ending with "!", fail at once without reading it (or null).
     */
    static PluginRunner create(Path dir, String failOn) throws IOException {
        Files.createDirectories(dir);
        Path exe = dir.resolve(failOn == null ? "fsplugin" : "fsplugin-failing-" + failOn.replace("!", "-early"));
        String script = SCRIPT;
        if (failOn != null && failOn.endsWith("!")) {
            String cmd = failOn.substring(0, failOn.length() - 1);
            script = script.replace("${FAIL_EARLY:-}", cmd).replace("$FAIL_EARLY", cmd);
        } else if (failOn != null) {
            script = script.replace("${FAIL_ON:-}", failOn).replace("$FAIL_ON", failOn);
        }
        Files.writeString(exe, script, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(exe, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path config = dir.resolve(exe.getFileName() + ".yaml");
        Files.writeString(config, "executablepath: " + exe.toAbsolutePath() + "\noptions:\n  directory: " + dir.resolve("objects").toAbsolutePath() + "\n",
                StandardCharsets.UTF_8);
        return PluginRunner.load(config);
    }
}
