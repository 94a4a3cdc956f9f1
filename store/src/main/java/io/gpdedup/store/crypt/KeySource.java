package io.gpdedup.store.crypt;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Where the store gets its key-encryption key: a key file ({@code encryption.key-file}) or the
 * standard output of a command ({@code encryption.key-command}, for a KMS or vault client). The
 * command is run directly with the arguments as configured, never through a shell, so nothing in
 * them is expanded; its output is the text of a key file.
 *
 * @param keyFile the key file, or null
 * @param keyCommand the program and its arguments, or null
 */
public record KeySource(Path keyFile, List<String> keyCommand) {
    private static final long COMMAND_SECONDS = 60;
    private static final int MAX_OUTPUT = 64 * 1024;

    public KeySource {
        if ((keyFile == null) == (keyCommand == null)) {
            throw new IllegalArgumentException("encryption takes one of key-file and key-command");
        }
        if (keyCommand != null) {
            keyCommand = List.copyOf(keyCommand);
            if (keyCommand.isEmpty() || keyCommand.get(0).isBlank()) {
                throw new IllegalArgumentException("encryption.key-command is empty");
            }
        }
    }

    /** The setting that names the key, for messages. */
    public String setting() {
        return keyFile != null ? "encryption.key-file " + keyFile : "encryption.key-command " + keyCommand.get(0);
    }

    /** Reads the key; {@link KeyException} in one line naming the setting when it cannot. */
    public Kek load() {
        return Kek.parse(keyFile != null ? readFile() : runCommand(), setting());
    }

    private String readFile() {
        try {
            if (Files.size(keyFile) > MAX_OUTPUT) {
                throw new KeyException(setting() + ": too large to be a key file");
            }
            return new String(Files.readAllBytes(keyFile), StandardCharsets.ISO_8859_1);
        } catch (NoSuchFileException e) {
            throw new KeyException(setting() + ": no such file (make one with gpdedup-store new-key FILE)");
        } catch (java.nio.file.AccessDeniedException e) {
            throw new KeyException(setting() + ": cannot read it (permission denied)");
        } catch (IOException | java.io.UncheckedIOException e) {
            throw new KeyException(setting() + ": cannot read it (" + (Files.isDirectory(keyFile) ? "a directory" : "read error") + ")");
        }
    }

    private String runCommand() {
        Process p;
        try {
            p = new ProcessBuilder(keyCommand).redirectError(ProcessBuilder.Redirect.INHERIT).redirectInput(ProcessBuilder.Redirect.PIPE).start();
        } catch (IOException e) {
            throw new KeyException(setting() + ": cannot run it (" + e.getMessage() + ")");
        }
        try {
            p.getOutputStream().close();
            byte[] out = readLimited(p.getInputStream());
            if (!p.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new KeyException(setting() + ": did not finish within " + COMMAND_SECONDS + " s");
            }
            if (p.exitValue() != 0) {
                throw new KeyException(setting() + ": exited with status " + p.exitValue());
            }
            return new String(out, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            p.destroyForcibly();
            throw new KeyException(setting() + ": cannot read its output (" + e.getMessage() + ")");
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new KeyException(setting() + ": interrupted");
        }
    }

    private byte[] readLimited(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[4096];
        int n;
        while ((n = in.read(buf)) > 0) {
            if (out.size() + n > MAX_OUTPUT) {
                throw new KeyException(setting() + ": printed more than a key file holds");
            }
            out.write(buf, 0, n);
        }
        return out.toByteArray();
    }
}
