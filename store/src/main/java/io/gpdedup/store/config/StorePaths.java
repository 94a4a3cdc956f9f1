package io.gpdedup.store.config;

import java.nio.file.Path;

/** Where the embedded default store lives: under {@code ~/.gpdedup}. */
public final class StorePaths {
    static final String PORT_FILE = "store.port";

    private StorePaths() {
    }

    /**
     * The home directory: $HOME when set, because the JVM's user.home comes from the password
     * database and ignores it (scripts and tests point HOME elsewhere on purpose).
     */
    static Path home() {
        String env = System.getenv("HOME");
        return Path.of(env != null && !env.isBlank() ? env : System.getProperty("user.home"));
    }

    public static Path defaultConfigFile() {
        return home().resolve(".gpdedup").resolve("store.yaml");
    }

    public static Path defaultDataDir() {
        return home().resolve(".gpdedup").resolve("store");
    }

    public static Path portFile(Path dataDir) {
        return dataDir.resolve(PORT_FILE);
    }

    /** {@code ~/x} against the home directory, a relative path against {@code base}. */
    static Path resolve(String path, Path base) {
        if (path.equals("~")) {
            return home();
        }
        if (path.startsWith("~/")) {
            return home().resolve(path.substring(2));
        }
        Path p = Path.of(path);
        return p.isAbsolute() ? p : base.resolve(p);
    }
}
