package io.gpdedup.store.cli;

import io.gpdedup.store.auth.PasswordHash;
import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code hash-password}: reads a password (never from the command line) and prints its config hash. */
@Command(name = "hash-password", mixinStandardHelpOptions = true,
        description = {"Prints a PBKDF2-HMAC-SHA256 hash of a password for the 'users' of a unit in the config.",
            "Asks twice on a terminal; otherwise reads one line from standard input."})
final class HashPasswordCommand implements Callable<Integer> {
    @Option(names = "--iterations", paramLabel = "N", description = "PBKDF2 iterations (default: ${DEFAULT-VALUE})")
    int iterations = PasswordHash.DEFAULT_ITERATIONS;

    @Override
    public Integer call() throws IOException {
        char[] password;
        Console console = System.console();
        if (console != null) {
            password = console.readPassword("Password: ");
            char[] again = console.readPassword("Repeat: ");
            if (password == null || again == null || !Arrays.equals(password, again)) {
                System.err.println("gpdedup-store: the passwords differ");
                return 1;
            }
            Arrays.fill(again, '\0');
        } else {
            String line = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            password = line == null ? null : line.toCharArray();
        }
        if (password == null || password.length == 0) {
            System.err.println("gpdedup-store: empty password");
            return 1;
        }
        try {
            System.out.println(PasswordHash.create(password, iterations).encoded());
        } catch (IllegalArgumentException e) {
            System.err.println("gpdedup-store: " + e.getMessage());
            return 2;
        } finally {
            Arrays.fill(password, '\0');
        }
        return 0;
    }
}
