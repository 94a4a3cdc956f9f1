package io.gpdedup.store.cli;

import io.gpdedup.store.BuildVersion;
import io.gpdedup.store.OneLineErrors;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/**
 * {@code gpdedup-store}: with no arguments, serves the embedded default store (as {@code serve}
 * does); subcommands run the server, make password hashes, and talk to a running server.
 */
@Command(name = "gpdedup-store", mixinStandardHelpOptions = true, versionProvider = StoreMain.Version.class,
        description = "The gpdedup deduplicating store. With no command: serve ~/.gpdedup/store (see 'serve --help').",
        subcommands = {ServeCommand.class, HashPasswordCommand.class, AdminCommand.Verify.class, AdminCommand.Gc.class,
            AdminCommand.Stat.class, AdminCommand.ListObjects.class, AdminCommand.Backups.class, AdminCommand.Prune.class,
            AdminCommand.Replication.class, CopyUnitCommand.class, DeleteBackupCommand.class,
            KeyCommands.NewKey.class, KeyCommands.RotateKey.class, KeyCommands.EncryptUnit.class})
public final class StoreMain implements java.util.concurrent.Callable<Integer> {

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line and returns its exit code (tests call this instead of main). */
    public static int run(String... args) {
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tF %1$tT %4$s %3$s: %5$s%6$s%n");
        }
        return OneLineErrors.on(new StoreMain()).execute(args);
    }

    @Override
    public Integer call() throws Exception {
        return new ServeCommand().call();
    }

    /** The build's version (project version plus commit), the one every executable prints. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"gpdedup-store version " + BuildVersion.get()};
        }
    }
}
