package io.gpdedup.appliance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.appliance.ApplianceProfile.ProfileException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ApplianceProfileTest {
    /** The repository's calibrated profile: the tests check it, not a copy of it. */
    static final Path SEED = Path.of("..", "profiles", "seed003.yaml");

    static ApplianceProfile seed() {
        return ApplianceProfile.load(SEED);
    }

    @Test
    void seedProfileLoads() {
        ApplianceProfile p = seed();
        assertEquals("seed003", p.name());
        assertTrue(p.scale() > 0 && p.scale() < 1, "a live run on this machine needs rates scaled down");
        assertEquals(p, ApplianceProfile.parse(p.toYaml(), "round trip"));
    }

    @Test
    void aggregatePeaksBetweenTenAndThirtyStreams() {
        ApplianceProfile p = seed();
        assertTrue(p.totalWriteMBps(20) > p.totalWriteMBps(10), "20 streams beat 10");
        assertTrue(p.totalWriteMBps(20) > p.totalWriteMBps(1), "20 streams beat 1");
        assertTrue(p.totalWriteMBps(30) < p.totalWriteMBps(20), "30 streams fall below 20");
        for (int n = 1; n < 200; n++) {
            assertTrue(p.aggregateCapMBps(n + 1) <= p.aggregateCapMBps(n), "appliance capacity never grows with streams");
            assertTrue(p.streamCapMBps(n + 1) >= p.streamCapMBps(n), "a bigger pool never slows a stream");
        }
        assertEquals(p.aggregateCapMBps(p.maxActiveStreams()), p.aggregateCapMBps(10 * p.maxActiveStreams()),
                "past the active-stream limit streams time-share: the capacity stays");
    }

    @Test
    void loneStreamIsSlowerThanEachOfAFewAndPluginSlowerThanChannel() {
        ApplianceProfile p = seed();
        assertTrue(p.streamCapMBps(1) < p.streamCapMBps(5));
        assertTrue(p.pluginStreamCapMBps(1) < p.streamCapMBps(1));
    }

    @Test
    void pooledStreamGetsBackOnlyPartOfWhatFinishedStreamsFree() {
        ApplianceProfile p = seed();
        double start = 111;
        double fair = 180;
        double now = p.pooledRateMBps(start, fair);
        assertTrue(now > start && now < fair);
        assertEquals(50, p.pooledRateMBps(start, 50), 1e-9, "never above the fair share");
    }

    @Test
    void scalingRoundTrips() {
        ApplianceProfile p = seed().withScale(0.05);
        assertEquals(1000, p.referenceMBps(p.liveBytesPerSecond(1000)), 1e-9);
        assertEquals(Duration.ofMillis(200), p.liveDuration(Duration.ofMillis(10)));
    }

    @Test
    void unknownKeyIsRejectedWithItsLine() {
        String text = seed().toYaml().replace("  raw-mbps: 10240.0\n", "  raw-mbps: 10240.0\n  raw-mpbs: 3\n");
        ProfileException e = assertThrows(ProfileException.class, () -> ApplianceProfile.parse(text, "t.yaml"));
        assertTrue(e.getMessage().contains("unknown key 'raw-mpbs'"), e.getMessage());
        assertTrue(e.getMessage().contains("line 11"), e.getMessage());
        assertTrue(e.getMessage().contains("at write.raw-mpbs"), e.getMessage());
    }

    @Test
    void repeatedKeyIsRejected() {
        String text = seed().toYaml() + "scale: 2\n";
        ProfileException e = assertThrows(ProfileException.class, () -> ApplianceProfile.parse(text, "t.yaml"));
        assertTrue(e.getMessage().contains("scale"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"scale", "  cap-mbps", "  namespace-op-ms", "  raw-mbps"})
    void missingKeyIsNamed(String key) {
        String text = seed().toYaml().lines().filter(l -> !l.startsWith(key + ":")).reduce("", (a, b) -> a + b + "\n");
        ProfileException e = assertThrows(ProfileException.class, () -> ApplianceProfile.parse(text, "t.yaml"));
        assertTrue(e.getMessage().contains(key.strip()) && e.getMessage().contains("missing"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"scale: 0.02|scale: 0", "pool-rebalance: 0.17|pool-rebalance: 1.5",
        "max-active-streams: 37|max-active-streams: 0", "namespace-op-ms: 3.9|namespace-op-ms: -1",
        "pool-reserve-mbps: 65.0|pool-reserve-mbps: 300", "scale: 0.02|scale: fast"})
    void badValueIsRejectedNamingTheKey(String edit) {
        String[] fromTo = edit.split("\\|");
        String text = seed().toYaml().replace(fromTo[0], fromTo[1]);
        assertTrue(!text.equals(seed().toYaml()) || fromTo[0].equals(fromTo[1]), "edit applied: " + edit);
        ProfileException e = assertThrows(ProfileException.class, () -> ApplianceProfile.parse(text, "t.yaml"));
        String key = fromTo[1].substring(0, fromTo[1].indexOf(':'));
        assertTrue(e.getMessage().contains(key), e.getMessage());
        assertFalse(e.getMessage().contains("java."), e.getMessage());
    }

    @Test
    void wrongTypeSaysWhatWasExpectedWithoutQuotingTheFile() {
        String text = seed().toYaml().replace("scale: 0.02", "scale: fast");
        ProfileException e = assertThrows(ProfileException.class, () -> ApplianceProfile.parse(text, "t.yaml"));
        assertEquals("appliance profile t.yaml, line 2 column 8: scale: expected a number", e.getMessage());
        String section = seed().toYaml().replaceAll("host:\n  read-cap-mbps: [^\n]*\n", "host: 3\n");
        assertTrue(!section.equals(seed().toYaml()), "edit applied");
        e = assertThrows(ProfileException.class, () -> ApplianceProfile.parse(section, "t.yaml"));
        assertTrue(e.getMessage().endsWith(": host: expected a mapping of keys to values"), e.getMessage());
    }

    @Test
    void emptyAndMissingFilesAreClearErrors(@TempDir Path dir) throws Exception {
        Path empty = Files.writeString(dir.resolve("empty.yaml"), "");
        assertEquals("appliance profile " + empty + " is empty", assertThrows(ProfileException.class, () -> ApplianceProfile.load(empty)).getMessage());
        ProfileException e = assertThrows(ProfileException.class, () -> ApplianceProfile.load(dir.resolve("nope.yaml")));
        assertTrue(e.getMessage().contains("does not exist"));
    }
}
