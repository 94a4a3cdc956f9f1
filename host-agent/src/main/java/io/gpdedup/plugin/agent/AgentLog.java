package io.gpdedup.plugin.agent;

import java.io.PrintStream;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/**
 * The agent's own diagnostics: start, stop and calls that broke, one line each. The launcher points
 * the agent's stderr at {@code <socket dir>/<name>-<id>.log}; per-call events go to the plugin log
 * like any plugin process's.
 */
final class AgentLog {
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");

    private final PrintStream out;
    private final String prefix;

    AgentLog(PrintStream out) {
        this.out = out;
        this.prefix = " gpdedup host agent " + ProcessHandle.current().pid() + ": ";
    }

    void info(String message) {
        out.println(LocalDateTime.now().format(STAMP) + prefix + message);
    }

    void warn(String message) {
        out.println(LocalDateTime.now().format(STAMP) + prefix + "WARNING: " + message);
    }
}
