package io.gpdedup.store.net;

import io.gpdedup.store.auth.Authenticator;
import io.gpdedup.store.auth.LoginThrottle;
import io.gpdedup.store.auth.UnitPolicy;
import io.gpdedup.store.config.HoldLimits;
import io.gpdedup.store.config.StoreConfig;
import io.gpdedup.store.engine.StoreEngine;
import io.gpdedup.store.jobs.AutoCollector;
import io.gpdedup.store.jobs.IdleRecompressor;
import io.gpdedup.store.log.RefusalLog;
import io.gpdedup.store.metrics.StoreMetrics;
import io.gpdedup.store.replication.ReplicationQueue;
import io.netty.channel.group.ChannelGroup;
import io.netty.util.internal.PlatformDependent;
import java.util.concurrent.ExecutorService;

/** What every connection's handlers share: the engine, its executor, config, auth and metrics. */
public final class ServerContext {
    public final StoreEngine engine;
    public final StoreConfig config;
    public final StoreMetrics metrics;
    /** Runs every engine call; event loops never block on the engine. */
    public final ExecutorService executor;
    public final Authenticator authenticator;
    public final LoginThrottle throttle;
    public final RefusalLog refusals;
    final RequestGate gate;
    final StoreRequests requests;
    final ChannelGroup channels;
    final AutoCollector collector;
    final IdleRecompressor recompressor;
    /** What the connections hold, held to the config's {@link HoldLimits}. */
    public final BackupLeaseCounts leases;
    public final FrameMemory frameMemory;
    /** Each unit's roles, retention lock and overwrite rule, as of the last start or reload. */
    private volatile StoreConfig policies;

    ServerContext(StoreEngine engine, StoreConfig config, StoreMetrics metrics, ExecutorService executor,
            Authenticator authenticator, LoginThrottle throttle, RefusalLog refusals, ChannelGroup channels,
            ReplicationQueue replication, AutoCollector collector, IdleRecompressor recompressor) {
        this.engine = engine;
        this.config = config;
        this.metrics = metrics;
        this.executor = executor;
        this.authenticator = authenticator;
        this.throttle = throttle;
        this.refusals = refusals;
        this.gate = new RequestGate();
        this.policies = config;
        this.requests = new StoreRequests(metrics, executor, config.maxFrameBytes(), config.maxBatch(), config.idleTimeout(), replication,
                collector, this::policy);
        this.channels = channels;
        this.collector = collector;
        this.recompressor = recompressor;
        HoldLimits holds = config.connectionLimits().holds();
        this.leases = new BackupLeaseCounts(holds, metrics);
        this.frameMemory = new FrameMemory(holds.frameMemoryBytes(PlatformDependent.maxDirectMemory()), config.units().size(), metrics);
    }

    public UnitPolicy policy(String unit) {
        return policies.policy(unit);
    }

    /** Takes the unit policies of a reloaded config for the requests that follow. */
    void replacePolicies(StoreConfig config) {
        policies = config;
    }
}
