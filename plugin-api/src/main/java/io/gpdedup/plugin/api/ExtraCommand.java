package io.gpdedup.plugin.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.List;

/** A plugin-specific command {@code <exe> <name> CFG args...}. */
public interface ExtraCommand {
    /** Number of arguments after CFG. */
    int arity();

    String usage();

    void run(PluginOptions options, PluginLog log, List<String> args, InputStream in, PrintStream out) throws IOException;
}
