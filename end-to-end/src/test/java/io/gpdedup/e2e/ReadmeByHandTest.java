package io.gpdedup.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.HostAgents;
import io.gpdedup.e2e.fixture.StoreProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's plugin config and its "By hand" commands, as written there, against the store the
 * README says to start ({@code dist/bin/gpdedup-store} with no config: the demo unit, user and
 * password). Only the port (a free one instead of 7411, which another store may hold) and /tmp
 * (the test's own) are replaced.
 */
@Timeout(180)
class ReadmeByHandTest {
    private static final Path REPOSITORY = Dist.directory().getParent();

    @TempDir
    Path dir;

    @Test
    void theByHandCommandsAndThePluginConfigWorkAgainstTheDemoStore() throws Exception {
        String readme = Files.readString(REPOSITORY.resolve("README.md"));
        Path home = Files.createDirectories(dir.resolve("home"));
        Path agents = dir.resolve("agents");
        StoreProcess.Started store = StoreProcess.launch(home, Duration.ofSeconds(60));
        try {
            String byHand = block(readme, "### By hand", "```sh\n");
            Result r = bash(local(byHand, store.port()), home, agents);
            assertEquals(0, r.exit(), r.toString());
            assertTrue(r.out().startsWith("1\talice\n2\tbob\n"), r.toString());
            assertTrue(r.out().contains("backups/20261123/20261123045500/gpbackup_0_20261123045500_16384 14\n"), r.toString());
            assertTrue(r.out().contains("usage: gpbackup_dedup_plugin"), r.toString());
            String key = "/data/gpseg0/backups/20261123/20261123045500/gpbackup_0_20261123045500_16384";
            Result deleted = bash(Dist.executable("gpbackup_dedup_plugin") + " restore_data " + dir.resolve("dedup-by-hand.yaml") + " " + key,
                    home, agents);
            assertNotEquals(0, deleted.exit(), "delete_backup removed the object: " + deleted);

            // The config of the gpbackup_dedup_plugin section, with the executable where dist/ is.
            String yaml = block(readme, "# /home/gpadmin/dedup.yaml", "").replace("/usr/local/gpdedup/", Dist.directory() + "/");
            Path cfg = Files.writeString(dir.resolve("dedup.yaml"), local(yaml, store.port()));
            String exe = Dist.executable("gpbackup_dedup_plugin").toString();
            String key2 = "/data/gpseg1/backups/20261124/20261124010000/gpbackup_1_20261124010000_16385";
            Result round = bash("printf 'from the readme config\\n' | " + exe + " backup_data " + cfg + " " + key2 + " && " + exe + " restore_data "
                    + cfg + " " + key2, home, agents);
            assertEquals(0, round.exit(), round.toString());
            assertEquals("from the readme config\n", round.out());
        } finally {
            store.process().destroy();
            store.process().waitFor(30, TimeUnit.SECONDS);
            HostAgents.kill(agents);
        }
    }

    /** The text of the fenced block that follows {@code marker} (from the marker's line on if {@code fence} is empty). */
    private static String block(String readme, String marker, String fence) {
        int at = readme.indexOf(marker);
        assertTrue(at >= 0, "README has no '" + marker + "'");
        int start = fence.isEmpty() ? at : readme.indexOf(fence, at) + fence.length();
        int end = readme.indexOf("```", start);
        return readme.substring(start, end);
    }

    private String local(String text, int port) {
        return text.replace("\"7411\"", "\"" + port + "\"").replace("/tmp/", dir + "/");
    }

    private record Result(int exit, String out, String err) {
    }

    private static Result bash(String script, Path home, Path agents) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("bash", "-e", "-c", script).directory(REPOSITORY.toFile());
        pb.environment().put("HOME", home.toString());
        pb.environment().put("GPDEDUP_AGENT_DIR", agents.toString());
        Process p = pb.start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        byte[] err = p.getErrorStream().readAllBytes();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "hung: " + script);
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
    }
}
