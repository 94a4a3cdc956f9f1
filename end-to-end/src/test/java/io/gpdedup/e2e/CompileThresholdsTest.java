package io.gpdedup.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.fixture.AgentHost;
import io.gpdedup.e2e.fixture.HostAgents;
import io.gpdedup.e2e.layout.Timestamps;
import io.gpdedup.e2e.shell.CommandLines;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The installed store and host agent, the JVMs that back up table after table, start with raised
 * C2 compile thresholds (build-dist's long-lived JVM flags): the many methods a backup calls only
 * thousands of times then stay with C1's code instead of a C2 compile, which a first backup paid
 * for in compiler-thread CPU (docs/benchmarks.md, "Compile thresholds"). The store exempts the
 * JDK's crypto provider: its AES-GCM runs on AES-NI only in C2's code, and sealing an encrypted
 * unit's records in C1's code made a first backup cost several times the store's CPU
 * (docs/benchmarks.md, "Encryption at rest").
 */
@Timeout(120)
class CompileThresholdsTest {
    private static final Pattern TIER4 = Pattern.compile("-XX:Tier4InvocationThreshold=([0-9]+)");
    /** HotSpot's default Tier4InvocationThreshold. */
    private static final int DEFAULT_TIER4_INVOCATIONS = 5000;
    /** The JVM's default thresholds (a tenth of the raised ones) for the JDK's crypto provider. */
    private static final String CRYPTO_AT_DEFAULTS = "-XX:CompileCommand=CompileThresholdScaling,com.sun.crypto.provider.*::*,0.1";

    @TempDir
    Path dir;

    @Test
    void theStoreAndTheHostAgentStartWithRaisedCompileThresholds() throws Exception {
        try (AgentHost host = AgentHost.start(dir)) {
            host.plugin().run(new SeededBytes(1, 200_000), "backup_data", host.cfg(), host.key(0, new Timestamps().next(), 16384))
                    .assertSucceeded();
            List<String> agents = HostAgents.serving(host.agentDir()).stream().map(h -> CommandLines.of(h.pid()).orElse("")).toList();
            assertEquals(1, agents.size(), "one host agent serves the call");
            String store = CommandLines.of(host.store().pid()).orElseThrow();
            assertTrue(store.contains("io.gpdedup.store.cli.StoreMain"), "the store's process runs its main class");
            assertRaised("the host agent", agents.get(0));
            assertRaised("the store", store);
            assertTrue(store.contains(CRYPTO_AT_DEFAULTS), "the store's crypto provider is not exempt from the raised thresholds: "
                    + store.substring(0, Math.min(500, store.length())));
        }
    }

    private static void assertRaised(String jvm, String commandLine) {
        Matcher m = TIER4.matcher(commandLine);
        // The JVM's flags come before its class path: the start of the line is enough to show.
        assertTrue(m.find() && Integer.parseInt(m.group(1)) > DEFAULT_TIER4_INVOCATIONS,
                "compile thresholds of " + jvm + " not raised: " + commandLine.substring(0, Math.min(300, commandLine.length())));
    }
}
