package io.gpdedup.bench;

import io.gpdedup.store.BuildVersion;
import io.gpdedup.store.OneLineErrors;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code gpdedup-bench}: throughput tests against the store and the real plugin executables,
 * the cluster-scale model, PostgreSQL-driven backups, and comparisons with other tools. Progress
 * goes to stderr, result tables to stdout, files (CSV, JSON, PNG) under {@code --out}.
 */
@Command(name = "gpdedup-bench", mixinStandardHelpOptions = true, versionProvider = BenchMain.Version.class,
        description = "Benchmarks and reproductions for gpdedup.",
        subcommands = {
            CommandLine.HelpCommand.class, io.gpdedup.bench.compare.CompareCommand.class,
            io.gpdedup.bench.report.ReportCommand.class,
            io.gpdedup.bench.model.ModelCommand.class,
            io.gpdedup.bench.pg.PgCommand.class,
            io.gpdedup.bench.runner.ConnchkCommand.class, io.gpdedup.bench.runner.IsolatedCommand.class,
            io.gpdedup.bench.runner.CalibrateCommand.class, io.gpdedup.bench.runner.GpbackupSimCommand.class,
        })
public final class BenchMain implements Runnable {
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line and returns its exit code (tests call this instead of main). */
    public static int run(String... args) {
        return OneLineErrors.on(new BenchMain()).execute(args);
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"gpdedup-bench version " + BuildVersion.get()};
        }
    }
}
