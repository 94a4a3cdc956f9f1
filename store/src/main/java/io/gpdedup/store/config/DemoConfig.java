package io.gpdedup.store.config;

import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.store.container.OwnerOnly;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The config written on first start when there is none: one unit {@code gpdedup} with user
 * {@code gpdedup}, password {@code gpdedup}, on loopback only. A demo default: anyone who reads the
 * docs knows the password, which is why the server refuses to listen beyond loopback with it.
 */
public final class DemoConfig {
    public static final String UNIT = "gpdedup";
    public static final String USER = "gpdedup";
    public static final String PASSWORD = "gpdedup";

    private DemoConfig() {
    }

    /** Writes the demo config to {@code file} unless a file is already there; returns whether it wrote. */
    public static boolean writeIfAbsent(Path file) {
        String hash = PasswordHash.create(PASSWORD.toCharArray(), PasswordHash.DEFAULT_ITERATIONS).encoded();
        String text = "# gpdedup-store configuration, written on first start as a DEMO default (see docs/store.md).\n"
                + "# User gpdedup / password gpdedup is public knowledge: the server refuses to listen\n"
                + "# beyond loopback while a user has it. Replace the hash with one from\n"
                + "# `gpdedup-store hash-password` before changing listen-address. Beyond loopback it\n"
                + "# also needs tls-cert and tls-key, or tls-required: false for plain text.\n"
                + "listen-address: " + StoreConfig.DEFAULT_LISTEN_ADDRESS + "\n"
                + "port: " + StoreConfig.DEFAULT_PORT + "\n"
                + "data-dir: store   # relative to this file's directory\n"
                + "metrics-port: " + StoreConfig.DEFAULT_METRICS_PORT + "\n"
                + "units:\n"
                + "  " + UNIT + ":\n"
                + "    users:\n"
                + "      " + USER + ": " + hash + "\n";
        try {
            OwnerOnly.createDirectories(file.toAbsolutePath().getParent());
            // CREATE_NEW: two servers starting at once must not overwrite each other's file.
            try (java.io.OutputStream out = java.nio.channels.Channels.newOutputStream(
                    OwnerOnly.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))) {
                out.write(text.getBytes(StandardCharsets.UTF_8));
            }
            return true;
        } catch (FileAlreadyExistsException e) {
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the default config " + file, e);
        }
    }
}
