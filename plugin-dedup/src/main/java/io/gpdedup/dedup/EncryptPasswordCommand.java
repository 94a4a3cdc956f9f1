package io.gpdedup.dedup;

import io.gpdedup.plugin.api.ExtraCommand;
import io.gpdedup.plugin.api.PluginException;
import io.gpdedup.plugin.api.PluginLog;
import io.gpdedup.plugin.api.PluginOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code gpbackup_dedup_plugin encrypt_password CFG ENCRYPT_FILE}: reads a password on stdin and
 * prints it encrypted for {@code password_encryption: "on"}, with the secret that ENCRYPT_FILE
 * (the coordinator's {@code .encrypt}) holds under key {@code gpbackup_dedup_plugin}.
 */
final class EncryptPasswordCommand implements ExtraCommand {
    static final String NAME = "encrypt_password";

    @Override
    public int arity() {
        return 1;
    }

    @Override
    public String usage() {
        return "ENCRYPT_FILE   (password on stdin; prints the value for option 'password')";
    }

    @Override
    public void run(PluginOptions options, PluginLog log, List<String> args, Path workingDirectory, InputStream stdin, PrintStream out)
            throws IOException {
        String secret = secretFrom(ExtraCommand.path(workingDirectory, args.get(0)));
        BufferedReader in = new BufferedReader(new InputStreamReader(stdin, StandardCharsets.UTF_8));
        String password = in.readLine();
        if (password == null || password.isEmpty()) {
            throw new PluginException("encrypt_password: give the password on stdin");
        }
        out.println(PasswordCipher.encrypt(password, secret));
    }

    /** The .encrypt file is YAML of {@code <plugin name>: <secret>} lines, as gpbackup reads it. */
    static String secretFrom(Path encryptFile) throws IOException {
        if (!Files.isReadable(encryptFile)) {
            throw new PluginException("cannot read " + encryptFile);
        }
        for (String line : Files.readAllLines(encryptFile, StandardCharsets.UTF_8)) {
            String l = line.trim();
            if (l.startsWith(DedupPlugin.NAME + ":")) {
                String v = l.substring(DedupPlugin.NAME.length() + 1).trim();
                if (v.length() >= 2 && (v.startsWith("\"") && v.endsWith("\"") || v.startsWith("'") && v.endsWith("'"))) {
                    v = v.substring(1, v.length() - 1);
                }
                if (!v.isEmpty()) {
                    return v;
                }
            }
        }
        throw new PluginException(encryptFile + " has no '" + DedupPlugin.NAME + ":' key");
    }
}
