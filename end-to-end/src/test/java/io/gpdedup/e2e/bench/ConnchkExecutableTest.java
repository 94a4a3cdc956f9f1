package io.gpdedup.e2e.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreClient;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.StoreProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dist/bin/gpdedup-bench connchk --host} against a real {@code dist/bin/gpdedup-store}, as a
 * storage admin runs ddpconnchk against the target: unique data through the real client, read back
 * checked, write and read MB/s per thread count, and nothing of it left in the unit. stderr is not a
 * terminal here: no progress bar, and no logging framework's warning either.
 */
@Timeout(180)
class ConnchkExecutableTest {
    private static final String PASSWORD = "connchk-password";
    private static final Pattern ROW = Pattern.compile("^\\s*(\\d+)\\s+(\\d+\\.\\d)\\s+(\\d+\\.\\d)\\s+.*SHA-256 ok$", Pattern.MULTILINE);

    @TempDir
    Path dir;

    @Test
    void writesReadsBackVerifiedPerThreadCountAndDeletesWhatItWrote() throws Exception {
        Path home = dir.resolve("store-home");
        StoreProcess.writeConfig(home, "", PASSWORD, 1_000);
        Path passwordFile = Files.writeString(dir.resolve("password"), PASSWORD + "\n");
        try (StoreProcess store = StoreProcess.start(home)) {
            Process p = new ProcessBuilder(Dist.executable("gpdedup-bench").toString(), "connchk", "--host", "127.0.0.1", "--port",
                    String.valueOf(store.port()), "--unit", StoreProcess.UNIT, "--user", StoreProcess.USER, "--password-file", passwordFile.toString(),
                    "--threads", "1,2", "--size", "4MiB").redirectError(dir.resolve("stderr").toFile()).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "connchk hung");
            String err = Files.readString(dir.resolve("stderr"));
            assertEquals(0, p.exitValue(), out + err);
            assertEquals("", err, "stderr that is not a terminal gets no progress bar and no warnings");

            assertTrue(out.contains("4.00 MiB per thread"), out);
            Matcher m = ROW.matcher(out);
            List<Integer> threads = new java.util.ArrayList<>();
            while (m.find()) {
                threads.add(Integer.parseInt(m.group(1)));
                assertTrue(Double.parseDouble(m.group(2)) > 0 && Double.parseDouble(m.group(3)) > 0, m.group());
            }
            assertEquals(List.of(1, 2), threads, out);
            assertTrue(out.contains("deleted the 3 objects (12.00 MiB)"), out);

            ClientSettings settings = ClientSettings.of("127.0.0.1", store.port(), StoreProcess.UNIT, StoreProcess.USER, PASSWORD);
            try (StoreClient client = StoreClient.connect(settings)) {
                assertEquals(List.of(), client.list(""), "connchk left objects in the unit");
            }
        }
    }
}
