package io.gpdedup.store.auth;

import io.gpdedup.protocol.wire.MessageType;
import java.util.Locale;

/**
 * What a user may do in a unit (docs/security.md): {@code restore} lists and reads; {@code
 * backup} also writes new objects; {@code admin} also deletes, collects garbage, starts
 * replication and may bypass governance retention locks. A user the unit gives no role keeps the
 * rights every user had before roles: all but bypassing a lock.
 */
public enum Role {
    RESTORE,
    BACKUP,
    ADMIN,
    UNASSIGNED;

    /** The role a config word names. */
    public static Role parse(String word) {
        for (Role r : values()) {
            if (r != UNASSIGNED && r.word().equals(word)) {
                return r;
            }
        }
        throw new IllegalArgumentException("'" + word + "' is not a role (admin, backup or restore)");
    }

    /** The config's word; a user with no role has none. */
    public String word() {
        return this == UNASSIGNED ? "" : name().toLowerCase(Locale.ROOT);
    }

    /** Whether this role may send a request of type {@code t}. */
    public boolean permits(MessageType t) {
        return switch (needed(t)) {
            case RESTORE -> true;
            case BACKUP -> this != RESTORE;
            default -> this == ADMIN || this == UNASSIGNED;
        };
    }

    /** Whether this role may end governance retention locks early. */
    public boolean mayBypassGovernance() {
        return this == ADMIN;
    }

    /** The least role that may send a request of type {@code t}. */
    public static Role needed(MessageType t) {
        return switch (t) {
            case BEGIN_BACKUP, MISSING, PUT_CHUNKS, APPEND_RECIPE, COMMIT, ABORT, SYNC -> BACKUP;
            case DELETE, DELETE_OBJECT, GC, REPLICATE -> ADMIN;
            default -> RESTORE;
        };
    }
}
