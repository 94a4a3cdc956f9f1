package io.gpdedup.store.s3;

import io.gpdedup.store.container.OwnerOnly;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.UUID;

/**
 * Who holds a lease: a store's id (random, kept in {@code <data dir>/store.id}, so the same store
 * restarting on its data directory knows its own leases), its host name and its process id (for
 * the message a second store prints). The data directory's lock guarantees that one process at a
 * time runs as a given store id.
 */
record StoreIdentity(String id, String host, long pid) {
    static StoreIdentity of(Path dataDir) throws IOException {
        Path file = dataDir.resolve("store.id");
        String id;
        if (Files.exists(file)) {
            id = Files.readString(file, StandardCharsets.US_ASCII).trim();
        } else {
            id = UUID.randomUUID().toString();
            Path tmp = dataDir.resolve("store.id.tmp");
            OwnerOnly.writeString(tmp, id + "\n");
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        return new StoreIdentity(id, hostName(), ProcessHandle.current().pid());
    }

    private static String hostName() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown host";
        }
    }
}
