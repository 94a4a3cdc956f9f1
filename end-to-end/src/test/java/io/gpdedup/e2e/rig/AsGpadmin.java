package io.gpdedup.e2e.rig;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * One command run as the rig's {@code gpadmin} with the rig's environment ({@code env.sh}), the way
 * an administrator runs gpbackup: {@code setpriv} drops from root to gpadmin with a fresh login
 * environment and execs in place, so the process we wait for is the command itself and our
 * SIGTERM reaches it. Output (stdout and stderr together) goes to a log file.
 */
final class AsGpadmin {
    static final String USER = "gpadmin";
    /** How long gpbackup and gprestore get to clean up (stop their helpers) after SIGTERM. */
    private static final Duration CLEANUP = Duration.ofSeconds(60);
    /** gprestore's progress bars, e.g. {@code Tables restored:  0 / 42    0.00%}, one line per refresh. */
    private static final Pattern PROGRESS = Pattern.compile("[A-Za-z -]+:\\s+\\d+ / \\d+\\s+[\\d.]+%");

    /** How a command ended: its exit status, or a timeout after which it was stopped. */
    record Outcome(String command, int exit, boolean timedOut, Duration limit, String output, String stateAtTimeout) {
        boolean succeeded() {
            return !timedOut && exit == 0;
        }

        /** The last lines of the output, for failure messages; progress bars left out. */
        String tail(int lines) {
            List<String> all = output.lines().filter(l -> !PROGRESS.matcher(l).matches()).toList();
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        }

        String describe() {
            return timedOut
                    ? command + " did not finish within " + limit.toSeconds() + " s and was stopped; its output ended with:\n" + tail(25)
                            + (stateAtTimeout.isEmpty() ? "" : "\nwhen it was stopped:\n" + stateAtTimeout)
                    : command + " exited " + exit + "; its output ended with:\n" + tail(25);
        }
    }

    private AsGpadmin() {
    }

    /**
     * Runs {@code command} in {@code workDir} (which gpadmin must be able to enter). Past {@code limit} it gets SIGTERM, then after a
     * grace period SIGKILL with everything it started; processes whose command line holds
     * {@code strayMarker} (e.g. a backup timestamp: gpbackup_helper runs under sshd, not under us)
     * are killed too. {@code atTimeout} (may be null) describes the state of things before they are
     * stopped, for the failure message.
     */
    static Outcome run(Path rig, Path workDir, Path log, Duration limit, List<String> command, String strayMarker, Supplier<String> atTimeout) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of("setpriv", "--reuid=" + USER, "--regid=" + USER, "--init-groups", "--reset-env"));
        argv.addAll(List.of("bash", "-c", "source \"$0\" && exec \"$@\"", rig.resolve("env.sh").toString()));
        argv.addAll(command);
        Files.createDirectories(log.getParent());
        Process p = new ProcessBuilder(argv).directory(workDir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean timedOut = !p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
        String state = "";
        if (timedOut) {
            state = atTimeout == null ? "" : atTimeout.get();
            stop(p, strayMarker);
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        return new Outcome(String.join(" ", command), timedOut ? -1 : p.exitValue(), timedOut, limit, output, state);
    }

    private static void stop(Process p, String strayMarker) throws InterruptedException {
        List<ProcessHandle> started = p.descendants().toList();
        p.destroy();
        if (!p.waitFor(CLEANUP.toMillis(), TimeUnit.MILLISECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly().waitFor();
        }
        started.forEach(ProcessHandle::destroyForcibly);
        if (strayMarker != null) {
            ProcessHandle.allProcesses()
                    .filter(h -> h.info().user().map(USER::equals).orElse(false))
                    .filter(h -> h.info().commandLine().map(c -> c.contains(strayMarker)).orElse(false))
                    .forEach(ProcessHandle::destroyForcibly);
        }
    }
}
