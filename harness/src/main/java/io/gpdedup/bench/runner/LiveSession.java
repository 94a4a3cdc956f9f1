package io.gpdedup.bench.runner;

import io.gpdedup.appliance.ApplianceProfile;
import io.gpdedup.bench.model.KitProfile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * One live command's world: the installation, the profile at its live scale, a scratch directory
 * and a store serving through that profile. Closing stops the store and removes the scratch
 * directory unless it was asked to be kept.
 */
final class LiveSession implements AutoCloseable {
    private final Installation dist;
    private final ApplianceProfile profile;
    private final String profileName;
    private final Path work;
    private final boolean removeWork;
    private final LiveStore store;
    /** Stops the store (and removes the scratch directory) should this JVM be stopped before {@link #close}. */
    private final Thread onExit;
    private long nextRun;

    private LiveSession(Installation dist, ApplianceProfile profile, String profileName, Path work, boolean removeWork, LiveStore store) {
        this.dist = dist;
        this.profile = profile;
        this.profileName = profileName;
        this.work = work;
        this.removeWork = removeWork;
        this.store = store;
        this.nextRun = System.currentTimeMillis() / 1000 % 40_000;
        this.onExit = new Thread(this::stop, "live-session-cleanup");
        Runtime.getRuntime().addShutdownHook(onExit);
    }

    public static LiveSession open(LiveOptions o) throws IOException {
        Installation dist = Installation.locate(o.dist);
        KitProfile chosen = KitProfile.choose(o.profile);
        return open(dist, o.scaled(chosen.profile()), chosen.describe(), o.work, o.keep);
    }

    /** A session serving through {@code profile}, which {@code profileName} names for people. */
    static LiveSession open(Installation dist, ApplianceProfile profile, String profileName, Path workDir, boolean keep) throws IOException {
        Path work = workDir == null ? Files.createTempDirectory("gpdedup-bench-") : Files.createDirectories(workDir);
        boolean remove = workDir == null && !keep;
        try {
            // The store reads the profile at the live scale from the scratch directory: what ran is on disk.
            Path effective = work.resolve("profile.yaml");
            Files.writeString(effective, profile.toYaml(), StandardCharsets.UTF_8);
            LiveStore store = LiveStore.start(dist, work.resolve("store"), effective);
            return new LiveSession(dist, profile, profileName, work, remove, store);
        } catch (IOException | RuntimeException e) {
            if (remove) {
                delete(work);
            }
            throw e;
        }
    }

    public Installation dist() {
        return dist;
    }

    public ApplianceProfile profile() {
        return profile;
    }

    /** The profile for people: "built-in reference appliance", or its file. */
    public String profileName() {
        return profileName;
    }

    public LiveStore store() {
        return store;
    }

    public Path work() {
        return work;
    }

    /** A number no earlier run of this session (or a recent other one) used: seeds and object names. */
    synchronized long nextRun() {
        return nextRun++;
    }

    /** Live bytes for {@code referenceBytes}: data sizes scale with the rates. */
    public long liveBytes(long referenceBytes) {
        return Math.max(1, Math.round(referenceBytes * profile.scale()));
    }

    /** A live rate (bytes/s) in the reference's MB/s. */
    public double referenceMBps(double liveBytesPerSecond) {
        return profile.referenceMBps(liveBytesPerSecond);
    }

    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(onExit);
        } catch (IllegalStateException e) {
            // Already shutting down: the hook stops the session.
            return;
        }
        stop();
    }

    private void stop() {
        try {
            store.close();
        } finally {
            if (removeWork) {
                delete(work);
            }
        }
    }

    static void delete(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // Scratch space: what cannot go stays in the temp dir.
                }
            });
        } catch (IOException e) {
            // Same.
        }
    }
}
