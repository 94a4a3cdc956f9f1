package io.gpdedup.plugin.agent;

import io.gpdedup.plugin.api.CommandDispatcher;
import io.gpdedup.plugin.api.PluginDefinition;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;

/**
 * Serves calls with the plugin's {@link CommandDispatcher}, exactly as an in-process plugin would,
 * except that the definition and parsed configs outlive the call. Backends keep their own shared state
 * (pooled connections) behind {@link PluginDefinition#open}.
 */
final class DispatchingHandler implements CallHandler {
    private final CommandDispatcher dispatcher;
    private final ConfigCache configs = new ConfigCache();

    DispatchingHandler(PluginDefinition plugin) {
        this.dispatcher = new CommandDispatcher(plugin);
    }

    @Override
    public int handle(CallRequest call, InputStream in, OutputStream out, PrintStream err) {
        return dispatcher.run(call.argv(), call.workingDirectory(), configs, in, out, err);
    }
}
