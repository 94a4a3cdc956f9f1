package io.gpdedup.store.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.ClientSettings;
import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.store.replication.ReplicationSettings;
import io.gpdedup.store.replication.ReplicationTarget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The config's replication-targets and replication-max-jobs-per-unit: read, defaulted, and bad values named. */
class ReplicationSectionTest {
    private static final String HASH = PasswordHash.create("pw".toCharArray(), 1_000).encoded();
    private static final String UNITS = "units:\n  prod:\n    users:\n      backup: " + HASH + "\n  test:\n    users:\n      t: " + HASH + "\n";

    @TempDir
    Path dir;

    private ReplicationSettings parse(String text) {
        return ConfigLoader.parse(text + UNITS, "store.yaml", dir).replication();
    }

    private String refusal(String text) {
        return assertThrows(ConfigLoader.ConfigException.class, () -> parse(text)).getMessage();
    }

    @Test
    void targetsAreReadWithTheirTlsAndUnits() throws Exception {
        Files.writeString(dir.resolve("dr-ca.pem"), "not parsed until a copy starts");
        ReplicationSettings r = parse("""
                replication-max-jobs-per-unit: 7
                replication-targets:
                  dr:
                    host: dr.example.com
                    port: 7500
                    tls-ca-file: dr-ca.pem
                    units: [prod]
                  lab:
                    host: 10.0.0.5
                    tls: false
                  public:
                    host: backup.example.org
                """);
        assertEquals(7, r.maxJobsPerUnit());
        assertEquals(3, r.targets().size());
        ReplicationTarget dr = r.targets().get(0);
        assertEquals("dr", dr.name());
        assertEquals("dr.example.com", dr.host());
        assertEquals(7500, dr.port());
        assertEquals(dir.resolve("dr-ca.pem"), dr.tls().caFile(), "relative to the config's directory");
        assertEquals(Set.of("prod"), dr.units());
        ReplicationTarget lab = r.targets().get(1);
        assertEquals(ClientSettings.DEFAULT_PORT, lab.port());
        assertNull(lab.tls(), "plain TCP only when asked for");
        assertEquals(Set.of(), lab.units(), "every unit");
        ReplicationTarget pub = r.targets().get(2);
        assertEquals(null, pub.tls().caFile(), "TLS by default, trusting the system's CAs");
    }

    @Test
    void withoutTheKeysThereIsNoTargetAndTheDefaultLimit() {
        ReplicationSettings r = parse("");
        assertEquals(List.of(), r.targets());
        assertEquals(ReplicationSettings.DEFAULT_MAX_JOBS_PER_UNIT, r.maxJobsPerUnit());
    }

    @Test
    void badTargetsAreNamed() {
        assertTrue(refusal("replication-targets:\n  dr:\n    port: 7411\n").contains("replication-targets.dr.host is missing"));
        assertTrue(refusal("replication-targets:\n  dr:\n    host: a\n    units: [nope]\n")
                .contains("replication-targets.dr.units: no unit 'nope' in units"));
        assertTrue(refusal("replication-targets:\n  dr:\n    host: a\n    tls-ca-file: missing.pem\n")
                .contains("replication-targets.dr.tls-ca-file " + dir.resolve("missing.pem") + " does not exist"));
        assertTrue(refusal("replication-targets:\n  dr:\n    host: a\n    tls: false\n    tls-ca-file: x.pem\n")
                .contains("tls-ca-file is set but tls is false"));
        assertTrue(refusal("replication-targets:\n  dr:\n    host: a\n    port: 70000\n").contains("replication-targets.dr.port 70000 is not 1..65535"));
        assertTrue(refusal("replication-targets:\n  dr:\n    host: a\n    user: x\n").contains("unknown key 'user'"));
        assertTrue(refusal("replication-max-jobs-per-unit: 0\n").contains("replication-max-jobs-per-unit 0 is below 1"));
        assertTrue(refusal("max-frame-bytes: 134217728\n").contains("max-frame-bytes 134217728 is above 67108864"));
    }
}
