package io.gpdedup.bench.pg;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code gpdedup-bench pg}: a real PostgreSQL database through the plugins. */
@Command(name = "pg", mixinStandardHelpOptions = true,
        description = {"A real PostgreSQL database through the gpbackup plugins: gpbackup-like backup and restore over PgJDBC.",
            "Also: verification, the published table mix, changes between backups, an embedded server, and a summary report."},
        subcommands = {
            PgServerCommand.class,
            PgGenerateCommand.class,
            PgMutateCommand.class,
            PgBackupCommand.class,
            PgRestoreCommand.class,
            PgVerifyCommand.class,
            PgReportCommand.class,
        })
public final class PgCommand implements Runnable {
    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
