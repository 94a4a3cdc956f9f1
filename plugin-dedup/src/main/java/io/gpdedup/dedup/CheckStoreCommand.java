package io.gpdedup.dedup;

import io.gpdedup.client.StoreClient;
import io.gpdedup.plugin.api.ExtraCommand;
import io.gpdedup.plugin.api.PluginLog;
import io.gpdedup.plugin.api.PluginOptions;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code gpbackup_dedup_plugin check_store CFG}: logs in to the store the config names, as the
 * config says, and prints one line: the store's address, the protocol version it speaks and the
 * unit. What {@code gpdedup-cluster check} runs on every host, so that a wrong address, a firewall
 * or a refused login shows before a backup does.
 */
final class CheckStoreCommand implements ExtraCommand {
    static final String NAME = "check_store";

    private final StoreConnections connections;

    CheckStoreCommand(StoreConnections connections) {
        this.connections = connections;
    }

    @Override
    public int arity() {
        return 0;
    }

    @Override
    public String usage() {
        return "  (log in to the config's store; prints its address, protocol version and unit)";
    }

    @Override
    public void run(PluginOptions options, PluginLog log, List<String> args, Path workingDirectory, InputStream in, PrintStream out) {
        DedupOptions o = DedupOptions.from(options, DedupPlugin.NAME);
        PasswordExposure.checkConfigFile(options, log);
        PasswordExposure.checkConnection(o.store(), log);
        // Not patient: a store that is away must fail the check now, not after the connect timeout's retries.
        StoreClient client = connections.borrow(o.store(), false);
        try {
            // A request after the login: a store that logs in but cannot serve the unit fails here.
            client.ping();
            String line = "gpdedup-store " + client.address() + " protocol " + client.protocolVersion() + " unit " + o.store().unit();
            out.println(line);
            log.info("check_store: " + line);
        } finally {
            connections.giveBack(client);
        }
    }
}
