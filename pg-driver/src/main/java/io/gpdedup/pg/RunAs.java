package io.gpdedup.pg;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The OS account PostgreSQL server programs run under. initdb and postgres refuse to run as root,
 * and CI runs everything as root, so as root we drop to an unprivileged account with
 * {@code setpriv} (util-linux, on every Debian): {@code $GPDEDUP_PG_USER}, else {@code nobody},
 * else a {@code gpdedup-pg} system account we create with {@code useradd}. setpriv execs in place,
 * so the process we start is the postmaster itself and our signals reach it.
 */
final class RunAs {
    static final String USER_ENV = "GPDEDUP_PG_USER";
    private static final String CREATED_USER = "gpdedup-pg";

    private final String user;
    private final int uid;
    private final int gid;

    private RunAs(String user, int uid, int gid) {
        this.user = user;
        this.uid = uid;
        this.gid = gid;
    }

    /** Ourselves when not root; otherwise the unprivileged account (created if needed). */
    static RunAs forServer() throws IOException {
        if (effectiveUid() != 0) {
            return new RunAs(System.getProperty("user.name"), -1, -1);
        }
        String wanted = System.getenv(USER_ENV);
        if (wanted != null && !wanted.isBlank()) {
            return lookup(wanted).orElseThrow(() -> new IOException(USER_ENV + "=" + wanted + ": no such user"));
        }
        RunAs found = lookup("nobody").orElse(null);
        if (found == null) {
            found = lookup(CREATED_USER).orElse(null);
        }
        if (found == null) {
            run(List.of("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", CREATED_USER));
            // Another process may have created it at the same moment: look again either way.
            found = lookup(CREATED_USER).orElseThrow(() -> new IOException("could not create user " + CREATED_USER));
        }
        return found;
    }

    boolean switches() {
        return uid >= 0;
    }

    String user() {
        return user;
    }

    /** The words to put before a server program's command line. */
    List<String> prefix() throws IOException {
        if (!switches()) {
            return List.of();
        }
        Path setpriv = Stream.of("/usr/bin/setpriv", "/bin/setpriv", "/usr/sbin/setpriv").map(Paths::get)
                .filter(Files::isExecutable).findFirst()
                .orElseThrow(() -> new IOException("running as root needs setpriv (Debian package util-linux) to start PostgreSQL as " + user));
        return List.of(setpriv.toString(), "--reuid=" + uid, "--regid=" + gid, "--clear-groups", "--");
    }

    /** Makes {@code dir} (and everything under it) belong to the server account. */
    void own(Path dir) throws IOException {
        if (!switches()) {
            return;
        }
        UserPrincipalLookupService users = dir.getFileSystem().getUserPrincipalLookupService();
        var owner = users.lookupPrincipalByName(String.valueOf(uid));
        var group = users.lookupPrincipalByGroupName(String.valueOf(gid));
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Files.setOwner(p, owner);
                Files.getFileAttributeView(p, java.nio.file.attribute.PosixFileAttributeView.class).setGroup(group);
            }
        }
    }

    /** Fails clearly when the server account cannot reach {@code dir} (a 0700 parent owned by root, say). */
    void checkReachable(Path dir) throws IOException {
        if (!switches()) {
            return;
        }
        for (Path p = dir.toAbsolutePath().getParent(); p != null; p = p.getParent()) {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p);
            if (!perms.contains(PosixFilePermission.OTHERS_EXECUTE)) {
                throw new IOException("PostgreSQL runs as '" + user + "' (we are root) and cannot enter " + p
                        + " (mode " + java.nio.file.attribute.PosixFilePermissions.toString(perms) + "); use a directory under /tmp or chmod o+x " + p);
            }
        }
    }

    static int effectiveUid() throws IOException {
        for (String line : Files.readAllLines(Paths.get("/proc/self/status"), StandardCharsets.US_ASCII)) {
            if (line.startsWith("Uid:")) {
                return Integer.parseInt(line.substring(4).trim().split("\\s+")[1]);
            }
        }
        throw new IOException("no Uid line in /proc/self/status");
    }

    private static java.util.Optional<RunAs> lookup(String name) throws IOException {
        String entry = null;
        try {
            entry = run(List.of("getent", "passwd", name));
        } catch (IOException notFound) {
            for (String line : Files.readAllLines(Paths.get("/etc/passwd"), StandardCharsets.UTF_8)) {
                if (line.startsWith(name + ":")) {
                    entry = line;
                }
            }
        }
        if (entry == null || entry.isBlank()) {
            return java.util.Optional.empty();
        }
        String[] f = entry.trim().split(":");
        return java.util.Optional.of(new RunAs(name, Integer.parseInt(f[2]), Integer.parseInt(f[3])));
    }

    private static String run(List<String> command) throws IOException {
        Process p = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not finish");
            }
            if (p.exitValue() != 0) {
                throw new IOException(String.join(" ", command) + " failed (" + p.exitValue() + "): " + out.trim());
            }
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted", e);
        }
    }
}
