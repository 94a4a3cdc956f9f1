package io.gpdedup.store;

import java.io.PrintWriter;
import picocli.CommandLine;

/**
 * Reports what stops a command as one line on stderr: a bad command line (an unknown option, a
 * missing or malformed value) with where the command's help is and exit code 2, and a failure
 * while it runs with its message and exit code 1, instead of the whole usage text or a stack
 * trace: what a script or a DBA reading a log wants.
 */
public final class OneLineErrors implements CommandLine.IParameterExceptionHandler, CommandLine.IExecutionExceptionHandler {
    private OneLineErrors() {
    }

    /** {@code command} with what stops it reported in one line. */
    public static CommandLine on(Object command) {
        OneLineErrors handler = new OneLineErrors();
        return new CommandLine(command).setParameterExceptionHandler(handler).setExecutionExceptionHandler(handler);
    }

    @Override
    public int handleParseException(CommandLine.ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        String name = cmd.getCommandSpec().qualifiedName();
        print(cmd, name + ": " + oneLine(e.getMessage()) + " (see " + name + " --help)");
        return cmd.getCommandSpec().exitCodeOnInvalidInput();
    }

    @Override
    public int handleExecutionException(Exception e, CommandLine cmd, CommandLine.ParseResult parsed) {
        String message = e.getMessage();
        print(cmd, cmd.getCommandSpec().qualifiedName() + ": "
                + (message == null || message.isBlank() ? "failed unexpectedly, with no message (a bug: please report the command line)" : oneLine(message)));
        return cmd.getCommandSpec().exitCodeOnExecutionException();
    }

    private static String oneLine(String message) {
        return message.strip().replaceAll("\\s*\\R\\s*", " ");
    }

    private static void print(CommandLine cmd, String line) {
        PrintWriter err = cmd.getErr();
        err.println(line);
        err.flush();
    }
}
