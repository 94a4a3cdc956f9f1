package io.gpdedup.e2e.rig;

import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.HostAgents;
import io.gpdedup.e2e.layout.ConfigFile;
import io.gpdedup.e2e.shell.PluginShell;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The plugins installed for gpadmin, as an administrator would: {@code dist/} copied to a directory
 * every user can read (the repository may sit where gpadmin cannot enter), under a scratch root
 * that gpadmin owns, with plugin configs, logs and plugin storage there too. Each install gets
 * host agents of its own (an agent serves one installation directory); closing it kills them and
 * deletes the scratch root unless {@code -Dgpdedup.e2e.keep=true}.
 */
final class RigInstall implements AutoCloseable {
    private static final Pattern TIMESTAMP = Pattern.compile("Backup Timestamp = (\\d{14})");
    private static final Pattern BACKUP_PATH = Pattern.compile("/backups/\\d{8}/(\\d{14})/");

    private final Path root;
    private final Path home;
    private final Path work;
    private final Rig rig;

    private RigInstall(Rig rig, Path root) {
        this.rig = rig;
        this.root = root;
        this.home = root.resolve("gpdedup");
        this.work = root.resolve("work");
    }

    /**
     * Installs under a fresh {@code /tmp/gpdedup-rig-<name>-*}; {@code agentFlags} are appended to
     * the dedup plugin's host agent JVM flags (its {@code .launch} file's {@code agent_flags}).
     */
    static RigInstall create(Rig rig, String name, String agentFlags) throws IOException {
        Path root = Files.createTempDirectory(Paths.get("/tmp"), "gpdedup-rig-" + name + "-");
        PluginShell.requireShellSafe(root.toString());
        RigInstall install = new RigInstall(rig, root);
        copyTree(Dist.directory(), install.home);
        if (!agentFlags.isEmpty()) {
            Path launch = install.home.resolve("lib/gpbackup_dedup_plugin.launch");
            String text = Files.readString(launch, StandardCharsets.UTF_8);
            String changed = text.replaceFirst("(?m)^(agent_flags=.*?)\\s*$", "$1 " + Matcher.quoteReplacement(agentFlags));
            if (changed.equals(text)) {
                throw new IllegalStateException(launch + " has no agent_flags line");
            }
            Files.writeString(launch, changed, StandardCharsets.UTF_8);
        }
        Path wrapper = install.home.resolve("rig/gpbackup");
        Files.createDirectories(wrapper.getParent());
        try (var in = RigInstall.class.getResourceAsStream("gpbackup")) {
            Files.copy(in, wrapper);
        }
        Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.createDirectories(install.work);
        install.ownAll(root);
        return install;
    }

    Path root() {
        return root;
    }

    /** An executable of this installation, e.g. {@code gpbackup_dedup_plugin}. */
    Path executable(String name) {
        return home.resolve("bin").resolve(name);
    }

    /** A directory under the scratch root that gpadmin owns and can write: work dirs, logs, plugin storage. */
    Path directory(String name) throws IOException {
        Path d = root.resolve(name);
        Files.createDirectories(d);
        own(d);
        return d;
    }

    /**
     * Writes a plugin config for {@code executable} with these options, readable by gpadmin, named
     * {@code <root name>-<fileName>}: gpbackup and gprestore copy it to {@code /tmp/<their
     * timestamp>_<name>} on every host, and the unique name lets closing the install remove those.
     */
    Path config(String fileName, Path executable, Map<String, String> options) throws IOException {
        Path file = root.resolve(root.getFileName() + "-" + fileName);
        Files.writeString(file, ConfigFile.render(executable.toString(), new LinkedHashMap<>(options)), StandardCharsets.UTF_8);
        own(file);
        return file;
    }

    /** gpbackup run again when a concurrent test took the same start second (resource {@code gpbackup}); plugin_test.sh gets it too. */
    Path gpbackupCommand() {
        return home.resolve("rig/gpbackup");
    }

    /** Where gpbackup and gprestore run and log (one file per run). */
    Path work() {
        return work;
    }

    /**
     * gpbackup with these arguments, as gpadmin; returns the backup timestamp. Closing the install
     * clears what backups through its plugins left on the cluster's hosts.
     */
    String gpbackup(Duration limit, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(gpbackupCommand().toString()));
        command.addAll(List.of(args));
        AsGpadmin.Outcome o = rig.run(work, work.resolve("gpbackup-" + System.nanoTime() + ".log"), limit, command);
        if (!o.succeeded()) {
            throw new AssertionError(o.describe());
        }
        Matcher m = TIMESTAMP.matcher(o.output());
        if (!m.find()) {
            throw new AssertionError("gpbackup printed no backup timestamp:\n" + o.tail(25));
        }
        return m.group(1);
    }

    /** gprestore of backup {@code timestamp}, as gpadmin; see {@link Rig#gprestore}. */
    AsGpadmin.Outcome gprestore(Duration limit, String timestamp, String... args) throws IOException, InterruptedException {
        return rig.gprestore(work, limit, timestamp, List.of(args));
    }

    @Override
    public void close() throws IOException {
        HostAgents.kill(home);
        for (String t : backupsLogged()) {
            rig.forgetBackup(t);
        }
        try (var copies = Files.newDirectoryStream(Paths.get("/tmp"), "*_" + root.getFileName() + "-*.yaml")) {
            for (Path p : copies) {
                Files.deleteIfExists(p);
            }
        }
        if (!Boolean.getBoolean("gpdedup.e2e.keep")) {
            Rig.deleteTree(root);
        }
    }

    /**
     * What a test class made, undone: its databases dropped, its plugin fixture (store) stopped, its
     * install closed (agents, scratch), each step also when one before it fails; null: never made.
     */
    static void release(Rig rig, List<String> databases, AutoCloseable fixture, RigInstall install) throws Exception {
        try {
            if (rig != null) {
                for (String db : databases) {
                    rig.dropDatabase(db);
                }
            }
        } finally {
            try {
                if (fixture != null) {
                    fixture.close();
                }
            } finally {
                if (install != null) {
                    install.close();
                }
            }
        }
    }

    /** The timestamps of every backup the plugins of this install logged (their logs are all under the root). */
    private Set<String> backupsLogged() throws IOException {
        Set<String> out = new TreeSet<>();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path log : all.filter(p -> p.getFileName().toString().endsWith(".log") && Files.isRegularFile(p)).toList()) {
                Matcher m = BACKUP_PATH.matcher(Files.readString(log, StandardCharsets.UTF_8));
                while (m.find()) {
                    out.add(m.group(1));
                }
            }
        }
        return out;
    }

    private void own(Path p) throws IOException {
        UserPrincipal gpadmin = p.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(AsGpadmin.USER);
        Files.setOwner(p, gpadmin);
    }

    private void ownAll(Path dir) throws IOException {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.toList()) {
                own(p);
            }
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path src : all.toList()) {
                Path dst = to.resolve(from.relativize(src).toString());
                if (Files.isDirectory(src)) {
                    Files.createDirectories(dst);
                } else {
                    Files.copy(src, dst, StandardCopyOption.COPY_ATTRIBUTES, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }
}
