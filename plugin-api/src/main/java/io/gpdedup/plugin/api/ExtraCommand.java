package io.gpdedup.plugin.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/** A plugin-specific command {@code <exe> <name> CFG args...}. */
public interface ExtraCommand {
    /** Number of arguments after CFG. */
    int arity();

    String usage();

    /**
     * @param workingDirectory the caller's working directory (absolute), against which a relative path
     *     argument must be resolved: under a host agent this JVM's own directory is not the caller's
     */
    void run(PluginOptions options, PluginLog log, List<String> args, Path workingDirectory, InputStream in, PrintStream out)
            throws IOException;

    /** {@code arg} as a path, resolved against the caller's working directory when relative. */
    static Path path(Path workingDirectory, String arg) {
        return workingDirectory == null ? Paths.get(arg) : workingDirectory.resolve(arg);
    }
}
