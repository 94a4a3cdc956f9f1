package io.gpdedup.store.cli;

import io.gpdedup.store.config.ConfigLoader;
import io.gpdedup.store.config.DemoConfig;
import io.gpdedup.store.config.StoreConfig;
import io.gpdedup.store.config.StorePaths;
import io.gpdedup.store.crypt.KeyException;
import io.gpdedup.store.engine.StoreEngine;
import io.gpdedup.store.engine.StoreException;
import io.gpdedup.store.log.ServerLog;
import io.gpdedup.store.net.StoreService;
import io.gpdedup.store.s3.S3Backend;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import sun.misc.Signal;

/**
 * {@code serve}: runs the store until SIGTERM or SIGINT, then stops cleanly (in-flight commits
 * finish, the engine is closed) and exits 0.
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Runs the store server. Prints 'gpdedup-store listening on HOST:PORT' on stdout when ready and "
            + "writes the port to <data dir>/store.port.",
            "Without --config it reads ~/.gpdedup/store.yaml, writing a demo config there first if there is none "
            + "(unit gpdedup, user gpdedup, password gpdedup, loopback only)."})
final class ServeCommand implements Callable<Integer> {
    private static final System.Logger LOG = System.getLogger(ServeCommand.class.getName());

    @Option(names = "--config", paramLabel = "FILE", description = "YAML config (default: ~/.gpdedup/store.yaml)")
    Path config;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "data directory, overrides the config's data-dir")
    Path dataDir;

    @Option(names = "--port", paramLabel = "N", description = "port to listen on, overrides the config (0: any free port)")
    Integer port;

    @Option(names = "--metrics-port", paramLabel = "N", description = "Prometheus /metrics port, overrides the config (0: any free port, -1: off)")
    Integer metricsPort;

    @Option(names = "--log-file", paramLabel = "FILE",
            description = "log to this file, rotated as log-file-max-bytes and log-file-count say, instead of stderr; overrides the config")
    Path logFile;

    @Option(names = "--port-file", paramLabel = "FILE",
            description = "once listening, also write the port to this file (for scripts that start the store on --port 0)")
    Path portFile;

    @Option(names = "--standby",
            description = "start even though other stores hold bucket units of the config: refuse logins to those (NOT_SERVED) and "
                + "take each over once its holder's lease lapses (docs/s3.md, standby and failover)")
    boolean standby;

    @Option(names = "--appliance-profile", paramLabel = "FILE",
            description = "gpdedup-appliance only (the product store refuses it): serve through a simulated appliance with this "
                + "profile (e.g. profiles/seed003.yaml)")
    Path applianceProfile;

    @Option(names = "--appliance-trace", paramLabel = "FILE",
            description = "with a profile: write what its throttle let through, per stream and per 100 ms, to this CSV")
    Path applianceTrace;

    @Override
    public Integer call() {
        StoreConfig cfg;
        SimulatedAppliance.Profile profile = null;
        try {
            // Before the demo config is written: a store without the simulation (the product's) changes nothing.
            SimulatedAppliance appliance = applianceProfile == null ? null : SimulatedAppliance.find();
            cfg = loadConfig();
            if (appliance != null) {
                profile = appliance.load(applianceProfile.toAbsolutePath(), applianceTrace);
            } else if (applianceTrace != null) {
                throw new IllegalArgumentException("--appliance-trace needs an appliance profile");
            }
            ServerLog.install(cfg.log());
        } catch (ConfigLoader.ConfigException | IllegalArgumentException | IllegalStateException | UncheckedIOException
                | IOException e) {
            System.err.println("gpdedup-store: " + e.getMessage());
            return 2;
        }
        CountDownLatch stop = new CountDownLatch(1);
        // A handler of our own replaces the JVM's default for these signals, so the process can
        // finish its clean stop and exit 0 instead of the 143 of a signal death.
        Signal.handle(new Signal("TERM"), sig -> stop.countDown());
        Signal.handle(new Signal("INT"), sig -> stop.countDown());
        StoreService service;
        try {
            StoreEngine engine;
            try {
                engine = StoreService.openEngine(cfg, standby);
            } catch (S3Backend.BucketUnavailableException | KeyException e) {
                System.err.println("gpdedup-store: " + e.getMessage());
                return 2;
            }
            if (profile != null) {
                engine = applianceEngine(engine, profile);
            }
            service = StoreService.start(cfg, engine);
        } catch (KeyException e) {
            System.err.println("gpdedup-store: " + e.getMessage());
            return 2;
        } catch (IOException | StoreException | IllegalStateException e) {
            System.err.println("gpdedup-store: " + e.getMessage());
            return 1;
        }
        StoreService running = service;
        Signal.handle(new Signal("HUP"), sig -> reload(running));
        if (hangUpIgnored()) {
            LOG.log(System.Logger.Level.WARNING, "SIGHUP is ignored by this process (started under nohup?): kill -HUP will not reload "
                    + "the config; restart the store for config changes, or start it without nohup");
        }
        // Should the JVM exit some other way (System.exit elsewhere), still stop cleanly.
        Thread hook = new Thread(service::close, "store-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        if (portFile != null) {
            try {
                StoreService.writePortFile(portFile, service.address().getPort());
            } catch (IOException e) {
                System.err.println("gpdedup-store: cannot write the port file " + portFile + ": " + e.getMessage());
                service.close();
                return 1;
            }
        }
        System.out.println("gpdedup-store listening on " + StoreService.hostPort(service.address()));
        System.out.flush();
        try {
            stop.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.log(System.Logger.Level.INFO, "stopping: letting in-flight requests finish");
        service.close();
        LOG.log(System.Logger.Level.INFO, "stopped");
        return 0;
    }

    /**
     * SIGHUP: reads the config file again and takes its users and units; the other keys need a
     * restart. A config that cannot be used is logged and changes nothing.
     */
    private void reload(StoreService service) {
        Path file = configFile();
        try {
            StoreConfig cfg = ConfigLoader.load(file);
            service.reloadUsers(cfg);
            StringBuilder who = new StringBuilder();
            cfg.units().forEach((unit, users) -> who.append(' ').append(unit).append(users.keySet()));
            LOG.log(System.Logger.Level.INFO, "config reloaded from " + file + ": users of units" + who
                    + "; other keys take effect at the next start");
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "config reload from " + file + " failed, keeping the users as they were: " + e.getMessage());
        }
    }

    /**
     * Whether this process inherited SIGHUP as ignored, as under nohup: the JVM then leaves it
     * ignored and installs no handler, so a reload signal would change nothing without a word.
     */
    private static boolean hangUpIgnored() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("SigIgn:")) {
                    return (Long.parseUnsignedLong(line.substring("SigIgn:".length()).strip(), 16) & 1L) != 0;
                }
            }
        } catch (IOException | RuntimeException e) {
            // No /proc to tell (not Linux): say nothing.
        }
        return false;
    }

    private Path configFile() {
        return config != null ? config : StorePaths.defaultConfigFile();
    }

    /** The engine behind the simulated appliance; closes the engine if that cannot be set up. */
    private StoreEngine applianceEngine(StoreEngine engine, SimulatedAppliance.Profile profile) throws IOException {
        try {
            StoreEngine throttled = profile.wrap(engine);
            LOG.log(System.Logger.Level.INFO, "serving through " + profile.description());
            return throttled;
        } catch (IOException | RuntimeException e) {
            engine.close();
            throw e;
        }
    }

    private StoreConfig loadConfig() {
        Path file = configFile();
        if (config == null) {
            if (DemoConfig.writeIfAbsent(file)) {
                LOG.log(System.Logger.Level.WARNING, "wrote the demo config " + file + " (user gpdedup, password gpdedup, loopback only)");
            }
        }
        StoreConfig cfg = ConfigLoader.load(file);
        if (dataDir != null) {
            cfg = cfg.withDataDir(dataDir.toAbsolutePath());
        }
        if (port != null) {
            cfg = cfg.withPort(port);
        }
        if (metricsPort != null) {
            cfg = cfg.withMetricsPort(metricsPort);
        }
        if (logFile != null) {
            cfg = cfg.withLog(cfg.log().withFile(logFile.toAbsolutePath()));
        }
        return cfg;
    }
}
