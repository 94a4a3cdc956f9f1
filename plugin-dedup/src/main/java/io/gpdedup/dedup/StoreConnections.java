package io.gpdedup.dedup;

import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreAddress;
import io.gpdedup.client.StoreAuthException;
import io.gpdedup.client.StoreClient;
import io.gpdedup.client.StoreClientException;
import io.gpdedup.client.StoreConnectException;
import io.gpdedup.client.StoreTimeoutException;
import io.gpdedup.plugin.api.PluginException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * Logged-in store connections kept between calls. A plugin process uses one and exits; the host
 * agent serves thousands of calls, and a connection per call (TCP, handshake, login) would cost
 * more than an empty table's whole backup. A borrowed connection keeps itself alive however long
 * its caller pauses (gpbackup_helper between tables); an idle one in the pool does not, and the
 * store closes it after its idle timeout.
 */
final class StoreConnections {
    private static final int MAX_IDLE_PER_STORE = 16;
    private static final String UNREACHABLE_HINT = "; check options " + DedupOptions.HOSTNAME + " and " + DedupOptions.PORT
            + ", or raise " + DedupOptions.CONNECT_TIMEOUT;
    private final Map<ClientSettings, Deque<StoreClient>> idle = new HashMap<>();

    /**
     * An open connection, new or kept, logged in within the connect timeout. {@code patient}: wait
     * out a store that refuses connections up to that timeout (data calls, which a store restart of
     * a few seconds must not fail); otherwise fail at once (the setup hooks, where a wrong address
     * must show before gpbackup starts the data calls).
     */
    StoreClient borrow(ClientSettings settings, boolean patient) {
        synchronized (this) {
            Deque<StoreClient> q = idle.get(settings);
            while (q != null && !q.isEmpty()) {
                StoreClient c = q.pollFirst();
                if (c.isOpen()) {
                    c.keepAlive(true);
                    return c;
                }
            }
        }
        try {
            StoreClient c = patient ? StoreClient.connectPatiently(settings) : StoreClient.connectWithin(settings);
            c.keepAlive(true);
            return c;
        } catch (StoreAuthException e) {
            // The client's message already names the store, the user and the unit.
            throw new PluginException(e.getMessage() + " (check options " + DedupOptions.USERNAME + ", " + DedupOptions.PASSWORD + " and "
                    + DedupOptions.STORAGE_UNIT + ")");
        } catch (StoreConnectException e) {
            // A refused TLS certificate says what to check itself; anything else is a wrong address or a store that is away.
            throw new PluginException(e.lasting() ? e.getMessage() : e.getMessage() + UNREACHABLE_HINT);
        } catch (StoreTimeoutException e) {
            throw new PluginException(e.getMessage() + UNREACHABLE_HINT);
        } catch (StoreClientException e) {
            String peer = StoreAddress.text(settings.addresses());
            boolean named = settings.addresses().stream().anyMatch(a -> e.getMessage().contains(a.toString()));
            throw new PluginException(named ? e.getMessage() : "gpdedup-store at " + peer + ": " + e.getMessage());
        }
    }

    /** Closes every idle connection (their reader threads end with them). */
    synchronized void closeIdle() {
        idle.values().forEach(q -> q.forEach(StoreClient::close));
        idle.clear();
    }

    /** Hands a connection back; a broken one, or one too many, is closed. */
    void giveBack(StoreClient client) {
        client.keepAlive(false);
        if (client.isOpen()) {
            synchronized (this) {
                Deque<StoreClient> q = idle.computeIfAbsent(client.settings(), s -> new ArrayDeque<>());
                if (q.size() < MAX_IDLE_PER_STORE) {
                    q.addFirst(client);
                    return;
                }
            }
        }
        client.close();
    }
}
