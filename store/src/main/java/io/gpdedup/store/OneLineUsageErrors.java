package io.gpdedup.store;

import java.io.PrintWriter;
import picocli.CommandLine;

/**
 * Reports a bad command line (an unknown option, a missing or malformed value) as one line on
 * stderr naming the command and where its help is, with picocli's exit code for bad input (2),
 * instead of the whole usage text after the error: what a script or a DBA reading a log wants.
 */
public final class OneLineUsageErrors implements CommandLine.IParameterExceptionHandler {
    private OneLineUsageErrors() {
    }

    /** {@code command} with bad command lines reported in one line. */
    public static CommandLine on(Object command) {
        return new CommandLine(command).setParameterExceptionHandler(new OneLineUsageErrors());
    }

    @Override
    public int handleParseException(CommandLine.ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        String name = cmd.getCommandSpec().qualifiedName();
        PrintWriter err = cmd.getErr();
        err.println(name + ": " + e.getMessage().strip().replace('\n', ' ') + " (see " + name + " --help)");
        err.flush();
        return cmd.getCommandSpec().exitCodeOnInvalidInput();
    }
}
