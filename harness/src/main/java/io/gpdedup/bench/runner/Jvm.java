package io.gpdedup.bench.runner;

import java.util.ArrayList;
import java.util.List;

/** How to start another JVM running this harness's own classes (for the simulated hosts). */
final class Jvm {
    private Jvm() {
    }

    /** {@code java [flags] -cp <this JVM's class path>}: the main class and its arguments follow. */
    static List<String> command(String... flags) {
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(List.of(flags));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        return cmd;
    }
}
