package io.gpdedup.store.auth;

import io.gpdedup.protocol.model.RetentionLock;
import io.gpdedup.store.engine.CommitPolicy;
import java.util.Map;

/**
 * What a unit's config says beside its users: each user's role, and what each commit must obey
 * (the retention lock it records, whether it may replace a committed object).
 */
public record UnitPolicy(Map<String, Role> roles, CommitPolicy commits) {
    /** No roles, no lock, committed objects never replaced: a unit that says nothing more than its users. */
    public static final UnitPolicy DEFAULT = new UnitPolicy(Map.of(), new CommitPolicy(RetentionLock.Mode.NONE, 0, false));

    public UnitPolicy {
        roles = Map.copyOf(roles);
        java.util.Objects.requireNonNull(commits, "commits");
    }

    public Role roleOf(String user) {
        return roles.getOrDefault(user, Role.UNASSIGNED);
    }
}
