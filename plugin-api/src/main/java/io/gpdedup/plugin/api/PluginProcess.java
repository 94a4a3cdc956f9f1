package io.gpdedup.plugin.api;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;

/** The {@code main} of a plugin executable: real stdin/stdout/stderr around one {@link CommandDispatcher} call. */
public final class PluginProcess {
    private PluginProcess() {
    }

    public static void main(PluginDefinition plugin, String[] args) {
        PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true);
        OutputStream out = ClosedStdio.closedAtStart("stdout") ? ClosedStdio.stdout()
                : new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16);
        InputStream in = ClosedStdio.closedAtStart("stdin") ? ClosedStdio.stdin() : new FileInputStream(FileDescriptor.in);
        // stdout carries restored bytes: nothing else may ever print there.
        System.setOut(err);
        CommitGate.installForProcess();
        int status = new CommandDispatcher(plugin).run(args, in, out, err);
        try {
            plugin.close();
        } catch (RuntimeException e) {
            // the command's outcome is decided; what remains goes away with the process
        }
        err.flush();
        CommitGate.exit(status);
    }
}
