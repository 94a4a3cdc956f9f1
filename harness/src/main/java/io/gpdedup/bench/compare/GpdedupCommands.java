package io.gpdedup.bench.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * How to start gpdedup's two programs: the store and the plugin. Normally the executables of an
 * installation ({@code dist/bin}), exactly as a user runs them; for tests, the main classes on a
 * class path.
 *
 * @param store command prefix of {@code gpdedup-store} (arguments follow)
 * @param plugin command prefix of {@code gpbackup_dedup_plugin}
 * @param java the JVM both run on, for {@code jcmd} next to it
 * @param description how they were started, for reports
 */
record GpdedupCommands(List<String> store, List<String> plugin, Path java, String description) {
    static final String STORE_MAIN = "io.gpdedup.store.cli.StoreMain";
    static final String PLUGIN_MAIN = "io.gpdedup.dedup.DedupPlugin";

    public GpdedupCommands {
        store = List.copyOf(store);
        plugin = List.copyOf(plugin);
    }

    /** The launchers of an installation directory holding {@code bin/} and {@code lib/}. */
    public static GpdedupCommands installed(Path dist) throws IOException {
        Path storeBin = dist.resolve("bin/gpdedup-store");
        Path pluginBin = dist.resolve("bin/gpbackup_dedup_plugin");
        for (Path p : List.of(storeBin, pluginBin)) {
            if (!Files.isExecutable(p)) {
                throw new IOException("no executable " + p + ": build dist/ first (mvn -B -o install -pl distribution -DskipTests)");
            }
        }
        return new GpdedupCommands(List.of(storeBin.toString()), List.of(pluginBin.toString()), recordedJava(dist),
                "launchers in " + dist.toAbsolutePath().normalize() + "/bin");
    }

    /** Both main classes on {@code classPath}, run by {@code java} with default flags. */
    static GpdedupCommands classPath(Path java, String classPath) {
        // Short-lived JVMs: the flags the launchers use for a fast start.
        return new GpdedupCommands(List.of(java.toString(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classPath, STORE_MAIN),
                List.of(java.toString(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "--enable-native-access=ALL-UNNAMED",
                        "-cp", classPath, PLUGIN_MAIN), java,
                "main classes on a class path, " + java);
    }

    private static Path recordedJava(Path dist) throws IOException {
        Path file = dist.resolve("lib/java");
        if (Files.isReadable(file)) {
            // Relative in a release: its bundled runtime/bin/java (docs/build.md, "Releases").
            Path java = dist.resolve(Files.readString(file).strip());
            if (Files.isExecutable(java)) {
                return java;
            }
        }
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }
}
