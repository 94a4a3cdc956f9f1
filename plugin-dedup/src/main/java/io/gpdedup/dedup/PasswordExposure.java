package io.gpdedup.dedup;

import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreAddress;
import io.gpdedup.plugin.api.PluginLog;
import io.gpdedup.plugin.api.PluginOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The plugin log's WARNING lines for a password others can read: one in a plugin config file
 * readable by group or others, and one about to cross the network in clear. They warn, never
 * fail: the backup is still worth more than the warning. Each is written once per call.
 */
final class PasswordExposure {
    private static final Set<PosixFilePermission> GROUP_OR_OTHERS = EnumSet.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.OTHERS_READ);

    private PasswordExposure() {
    }

    /**
     * Warns when the config holds {@code password} (or {@code remote_password}) in plain text and
     * its file can be read by group or others, as gpbackup's copies in /tmp can (0644, and left
     * there unless password_encryption is on).
     */
    static void checkConfigFile(PluginOptions options, PluginLog log) {
        List<String> plain = List.of(DedupOptions.PASSWORD, DedupOptions.REMOTE_PASSWORD).stream()
                .filter(o -> options.isSet(o) && !options.isOn(encryptionOf(o))).toList();
        if (plain.isEmpty()) {
            return;
        }
        Path file = options.file();
        Set<PosixFilePermission> mode;
        try {
            mode = Files.getPosixFilePermissions(file);
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return; // it was just read; a file gone since then has nobody left to read it
        }
        if (mode.stream().noneMatch(GROUP_OR_OTHERS::contains)) {
            return;
        }
        log.warning("plugin config " + file + " holds option '" + String.join("' and '", plain) + "' in plain text and other users can read it ("
                + PosixFilePermissions.toString(mode) + "); encrypt it with encrypt_password and set "
                + String.join(" and ", plain.stream().map(o -> encryptionOf(o) + ": \"on\"").toList()) + " (docs/security.md)");
    }

    /**
     * Warns when {@code store} is reached without TLS at an address beyond loopback: the login
     * there carries the password in clear.
     */
    static void checkConnection(ClientSettings store, PluginLog log) {
        if (store.tls() != null || store.addresses().stream().allMatch(a -> loopback(a.host()))) {
            return;
        }
        log.warning("the password of user '" + store.user() + "' goes to gpdedup-store at " + StoreAddress.text(store.addresses())
                + " without TLS, readable on the network; set tls: \"on\" (and tls_ca_file) here and tls-cert and tls-key on the store "
                + "(docs/security.md)");
    }

    private static String encryptionOf(String passwordOption) {
        return passwordOption.equals(DedupOptions.PASSWORD) ? DedupOptions.PASSWORD_ENCRYPTION : DedupOptions.REMOTE_PASSWORD_ENCRYPTION;
    }

    /** Every address the name resolves to is loopback; a name that does not resolve fails the connection instead. */
    private static boolean loopback(String host) {
        try {
            for (InetAddress a : InetAddress.getAllByName(host)) {
                if (!a.isLoopbackAddress()) {
                    return false;
                }
            }
            return true;
        } catch (UnknownHostException | SecurityException e) {
            return true;
        }
    }
}
