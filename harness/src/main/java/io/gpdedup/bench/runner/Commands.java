package io.gpdedup.bench.runner;

import io.gpdedup.bench.report.Figures;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Model.CommandSpec;

/** What every live command notes about its run. */
final class Commands {
    /** The exit codes of the live commands, for their --help. */
    static final String EXIT_HEADING = "%nExit status:%n";
    static final String EXIT_OK = "0:done; every check in the printed checks table held";
    static final String EXIT_FAILED = "1:failed: a store that cannot be used, or an error during the run (one line on stderr)";
    static final String EXIT_USAGE = "2:bad options or profile (one line on stderr), nothing started";
    static final String EXIT_SHAPE = "3:shape not reproduced: the run completed, but a check in the checks table failed";

    private Commands() {
    }

    /** The command line as typed, from the root command on. */
    static String commandLine(CommandSpec spec) {
        List<String> words = new ArrayList<>();
        words.add("gpdedup-bench");
        words.addAll(spec.commandLine().getParseResult().originalArgs());
        return String.join(" ", words);
    }

    /**
     * Runs a command, turning bad input (a bad option or profile) into {@link #usageError} and a
     * real store that cannot be used into one line and exit 1.
     */
    static int runReportingUsageErrors(CommandSpec spec, java.util.concurrent.Callable<Integer> run) throws Exception {
        try {
            return run.call();
        } catch (IllegalArgumentException e) {
            return usageError(spec, e);
        } catch (StoreTarget.Unusable e) {
            System.err.println(spec.qualifiedName() + ": " + e.getMessage());
            return 1;
        }
    }

    /** Bad input: one clear line on stderr, exit code 2, nothing started. */
    static int usageError(CommandSpec spec, Exception e) {
        System.err.println(spec.qualifiedName() + ": " + e.getMessage());
        return 2;
    }

    static List<String> notes(LiveSession s) {
        return List.of(
                String.format(Locale.ROOT, "profile: %s at scale %s: live rates and data sizes are the reference appliance's x %s; "
                        + "durations are the reference appliance's", s.profileName(), Figures.significant(s.profile().scale(), 3),
                        Figures.significant(s.profile().scale(), 3)),
                "store: " + s.dist().home().resolve("bin").resolve(Installation.APPLIANCE_STORE) + " on 127.0.0.1, engine-threads " + LiveStore.ENGINE_THREADS,
                "MB = 2^20 bytes, as in the reference measurement");
    }
}
