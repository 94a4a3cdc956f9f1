package io.gpdedup.bench.runner;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * The gpdedup installation the live runs drive ({@code bin/gpdedup-store}, or with a profile
 * {@code bin/gpdedup-appliance}, and {@code bin/gpbackup_dedup_plugin}): the one given, else the
 * one this harness runs from ({@code <dist>/lib/harness.jar}), else system property
 * {@code gpdedup.dist}.
 */
public record Installation(Path home) {
    public static final String PROPERTY = "gpdedup.dist";
    public static final String STORE = "gpdedup-store";
    /** The store with the appliance simulation on its classpath: the product's store refuses a profile. */
    public static final String APPLIANCE_STORE = "gpdedup-appliance";
    public static final String DEDUP_PLUGIN = "gpbackup_dedup_plugin";

    public static Installation locate(Path given) {
        if (given != null) {
            return checked(given.toAbsolutePath().normalize());
        }
        Path own = ownHome();
        if (own != null && Files.isExecutable(own.resolve("bin").resolve(STORE))) {
            return new Installation(own);
        }
        String prop = System.getProperty(PROPERTY);
        if (prop != null && !prop.isBlank()) {
            return checked(Paths.get(prop).toAbsolutePath().normalize());
        }
        throw new IllegalArgumentException("cannot find the gpdedup distribution: run gpdedup-bench from dist/bin, "
                + "or give --dist DIR (the directory holding bin/gpdedup-store)");
    }

    private static Installation checked(Path home) {
        Installation d = new Installation(home);
        d.executable(STORE);
        return d;
    }

    private static Path ownHome() {
        try {
            Path jar = Paths.get(Installation.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (Files.isRegularFile(jar) && jar.getParent() != null && jar.getParent().getParent() != null) {
                return jar.getParent().getParent();
            }
        } catch (URISyntaxException | SecurityException | NullPointerException e) {
            return null;
        }
        return null;
    }

    /** An executable of {@code bin/}, failing clearly when it is missing. */
    public Path executable(String name) {
        Path exe = home.resolve("bin").resolve(name);
        if (!Files.isRegularFile(exe) || !Files.isExecutable(exe)) {
            throw new IllegalArgumentException(exe + " is missing or not executable: build the distribution "
                    + "(mvn -B -o install -pl distribution -DskipTests -q) or give --dist DIR");
        }
        return exe;
    }
}
