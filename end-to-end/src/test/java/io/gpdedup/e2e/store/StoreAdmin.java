package io.gpdedup.e2e.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpdedup.e2e.fixture.Dist;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** {@code dist/bin/gpdedup-store} admin commands run as a process, with the environment the test gives. */
final class StoreAdmin {
    private static final ObjectMapper JSON = new ObjectMapper();

    record Result(int exit, String stdout, String stderr) {
        JsonNode json() throws IOException {
            assertEquals(0, exit, this::toString);
            return JSON.readTree(stdout);
        }

        @Override
        public String toString() {
            return "exit " + exit + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
        }
    }

    private final Path dir;
    private final Path home;
    private final List<String> connection;
    private int calls;

    /** {@code connection}: the options every command gets (port, unit, user, password file). */
    StoreAdmin(Path dir, Path home, List<String> connection) {
        this.dir = dir;
        this.home = home;
        this.connection = connection;
    }

    Result run(String command, String... options) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of(Dist.executable("gpdedup-store").toString(), command));
        argv.addAll(connection);
        argv.addAll(List.of(options));
        int n = ++calls;
        Path out = dir.resolve("admin-" + n + ".out");
        Path err = dir.resolve("admin-" + n + ".err");
        ProcessBuilder pb = new ProcessBuilder(argv).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().put("HOME", home.toString());
        Process p = pb.start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "gpdedup-store " + command + " did not finish");
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }
}
