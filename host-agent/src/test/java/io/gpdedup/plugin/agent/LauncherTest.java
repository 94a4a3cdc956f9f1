package io.gpdedup.plugin.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.gpdedup.plugin.api.PluginDefinition;
import io.gpdedup.protocol.naming.RemoteName;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.yaml.snakeyaml.Yaml;

/**
 * The native launcher (the launcher module, compiled here with its build script) against real agent
 * processes, run the way gpbackup runs a plugin: a minimal environment without PATH or JAVA_HOME.
 * Skipped, with a message, only when the machine has no C compiler.
 */
class LauncherTest {
    private static final String NAME = TestStorePlugin.NAME;
    private static final String KEY = "/data/gpseg0/backups/20261123/20261123045500/gpbackup_0_20261123045500_";
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static Path binary;

    @TempDir
    Path tmp;
    private Path home;
    private Path run;
    private Path store;
    private Path config;

    @BeforeAll
    static void compile() throws Exception {
        Path build = Paths.get("").toAbsolutePath().getParent().resolve("launcher/build");
        assertTrue(Files.isExecutable(build), build + " missing");
        Path out = Paths.get("target/launcher-test/gpdedup_launcher").toAbsolutePath();
        Process p = new ProcessBuilder(build.toString(), out.toString()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int status = p.waitFor();
        assumeTrue(status == 0 || !output.contains("no C compiler"), "no C compiler on this machine, launcher tests skipped: " + output.trim());
        assertEquals(0, status, "building the launcher failed:\n" + output);
        binary = out;
    }

    @BeforeEach
    void setUp() throws IOException {
        home = tmp.resolve("home");
        run = tmp.resolve("run");
        store = tmp.resolve("store");
        config = tmp.resolve("plugin.yaml");
        Files.createDirectories(home.resolve("bin"));
        Files.createDirectories(home.resolve("lib"));
        Files.copy(binary, home.resolve("bin").resolve(NAME), StandardCopyOption.COPY_ATTRIBUTES);
        Files.writeString(home.resolve("lib/java"), ProcessHandle.current().info().command().orElseThrow() + "\n");
        // One classpath entry through $home, as build-dist writes them.
        Files.createSymbolicLink(home.resolve("lib/test-classes"), codeSource(TestStorePlugin.class));
        writeLaunch("io.gpdedup.plugin.agent.HostAgent", TestStorePlugin.class.getName());
        Files.writeString(config, "executablepath: " + home.resolve("bin").resolve(NAME) + "\noptions:\n  directory: " + store
                + "\n  log_directory: " + tmp.resolve("logs") + "\n");
    }

    @AfterEach
    void stopAgents() {
        for (ProcessHandle agent : agents()) {
            agent.destroy();
            agent.onExit().orTimeout(20, TimeUnit.SECONDS).exceptionally(e -> null).join();
        }
    }

    private void writeLaunch(String agentMain, String definition) throws IOException {
        String cp = Stream.of(codeSource(HostAgent.class).toString(), codeSource(PluginDefinition.class).toString(),
                codeSource(RemoteName.class).toString(), "$home/lib/test-classes",
                codeSource(JsonParser.class).toString(),
                codeSource(YAMLFactory.class).toString(), codeSource(Yaml.class).toString()).collect(Collectors.joining(":"));
        Files.writeString(home.resolve("lib").resolve(NAME + ".launch"), String.join("\n",
                "# written by LauncherTest",
                "format=1",
                "main=" + TestStorePlugin.class.getName(),
                "classpath=" + cp,
                "flags=-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto",
                "agent_main=" + agentMain,
                "definition=" + definition,
                "agent_flags=-XX:+UseSerialGC -Xss512k",
                "agent_args=--idle-timeout=60s",
                ""));
    }

    private static Path codeSource(Class<?> c) {
        try {
            return Paths.get(c.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Agent processes this test started: their command line names this test's socket directory. */
    private List<ProcessHandle> agents() {
        String marker = run.toString() + "/";
        return ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine().map(c -> c.contains(marker) && c.contains(".sock")).orElse(false))
                .collect(Collectors.toList());
    }

    private List<Path> sockets() throws IOException {
        if (!Files.isDirectory(run)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(run)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".sock")).collect(Collectors.toList());
        }
    }

    private record Result(int status, byte[] stdout, String stderr) {
        String out() {
            return new String(stdout, StandardCharsets.UTF_8);
        }
    }

    private Process start(Map<String, String> env, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(home.resolve("bin").resolve(NAME).toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(tmp.toFile());
        pb.environment().clear(); // COPY ... TO PROGRAM: no PATH, no JAVA_HOME
        pb.environment().put("GPDEDUP_AGENT_DIR", run.toString());
        pb.environment().putAll(env);
        return pb.start();
    }

    /** Runs the launcher, feeding stdin and draining stdout and stderr all at once. */
    private Result call(Map<String, String> env, byte[] stdin, String... args) throws Exception {
        Process p = start(env, args);
        CompletableFuture<Void> in = CompletableFuture.runAsync(() -> {
            try (OutputStream o = p.getOutputStream()) {
                o.write(stdin);
            } catch (IOException e) {
                // the command did not read it all
            }
        });
        CompletableFuture<byte[]> out = drain(p.getInputStream());
        CompletableFuture<byte[]> err = drain(p.getErrorStream());
        if (!p.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("launcher did not finish within " + WAIT + ": " + String.join(" ", args));
        }
        in.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        return new Result(p.exitValue(), out.get(WAIT.toSeconds(), TimeUnit.SECONDS),
                new String(err.get(WAIT.toSeconds(), TimeUnit.SECONDS), StandardCharsets.UTF_8));
    }

    private Result call(byte[] stdin, String... args) throws Exception {
        return call(Map.of(), stdin, args);
    }

    private static CompletableFuture<byte[]> drain(InputStream s) {
        return CompletableFuture.supplyAsync(() -> {
            try (s) {
                return s.readAllBytes();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static Map<String, String> require() {
        return Map.of("GPDEDUP_AGENT", "require");
    }

    /** Agent required; {@code direct} "off" makes the launcher relay stdin and stdout itself. */
    private static Map<String, String> require(String direct) {
        return Map.of("GPDEDUP_AGENT", "require", "GPDEDUP_AGENT_DIRECT", direct);
    }

    @ParameterizedTest(name = "direct stdio {0}")
    @ValueSource(strings = {"on", "off"})
    void backupAndRestoreGoThroughOneAgent(String direct) throws Exception {
        byte[] data = random(12 << 20, 1);
        Result b = call(require(direct), data, "backup_data", config.toString(), KEY + "1");
        assertEquals(0, b.status(), b.stderr());
        assertEquals("", b.stderr());
        Result r = call(require(direct), new byte[0], "restore_data", config.toString(), KEY + "1");
        assertEquals(0, r.status(), r.stderr());
        assertArrayEquals(data, r.stdout());
        assertEquals("", r.stderr());
        assertEquals(1, agents().size(), "one agent serves both calls");
        assertEquals(1, sockets().size());
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(run)));
    }

    @ParameterizedTest(name = "direct stdio {0}")
    @ValueSource(strings = {"on", "off"})
    void relaysTwelveMegabytesBothWaysAtOnce(String direct) throws Exception {
        writeLaunch(EchoHandler.class.getName(), "echo");
        byte[] data = random(12 << 20, 2);
        Result r = call(require(direct), data, "echo", "5");
        assertEquals(5, r.status(), r.stderr());
        assertArrayEquals(data, r.stdout());
        assertEquals("echoed " + data.length + " bytes\n", r.stderr());
    }

    private static void signal(String sig, long pid) throws Exception {
        Process k = new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).inheritIO().start();
        assertEquals(0, k.waitFor(), "kill -" + sig);
    }

    @Test
    void theAgentReadsAPipedStdinItselfButOnlyTheLauncherEndsIt() throws Exception {
        byte[] data = random(8 << 20, 9);
        Process p = start(require(), "backup_data", config.toString(), KEY + "direct");
        OutputStream stdin = p.getOutputStream();
        stdin.write(data, 0, 1 << 20);
        stdin.flush();
        awaitPartialFile();
        signal("STOP", p.pid());
        try {
            // 7 MiB more through a 64 KiB pipe: only possible if something besides the stopped launcher reads it.
            CompletableFuture<Void> rest = CompletableFuture.runAsync(() -> {
                try (stdin) {
                    stdin.write(data, 1 << 20, data.length - (1 << 20));
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            rest.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            Thread.sleep(300);
            assertFalse(Files.exists(TestStorePlugin.objectFile(store, KEY + "direct")),
                    "the pipe's end is not the end of the call's stdin until the launcher confirms it");
        } finally {
            signal("CONT", p.pid());
        }
        assertTrue(p.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        assertArrayEquals(data, Files.readAllBytes(TestStorePlugin.objectFile(store, KEY + "direct")));
    }

    @Test
    void aKilledLauncherFailsTheCallEvenWhileItsStdinPipeStaysOpen() throws Exception {
        // The writer (sleep) holds the pipe open and silent: the agent, reading it directly, would wait
        // forever if it did not watch the launcher itself.
        String script = "sleep 600 | \"$0\" backup_data \"$1\" \"$2\" & echo $!; wait";
        ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", script, home.resolve("bin").resolve(NAME).toString(), config.toString(),
                KEY + "watched").directory(tmp.toFile());
        pb.environment().put("GPDEDUP_AGENT_DIR", run.toString());
        pb.environment().putAll(require());
        Process sh = pb.start();
        try {
            long launcher = Long.parseLong(new java.io.BufferedReader(new java.io.InputStreamReader(sh.getInputStream(),
                    StandardCharsets.UTF_8)).readLine().trim());
            awaitPartialFile();
            // Killed before the agent opened the pipe, the call would fail another way (STDIN_REQUEST
            // to a dead launcher), and the watch would go untested.
            awaitAgentHolding(launcher, 0);
            signal("KILL", launcher);
            String failure = TestStorePlugin.awaitFailure(store, KEY + "watched", WAIT);
            assertTrue(failure.contains("the caller exited"), failure);
            assertFalse(Files.exists(TestStorePlugin.objectFile(store, KEY + "watched")));
        } finally {
            sh.descendants().forEach(ProcessHandle::destroyForcibly);
            sh.destroyForcibly();
        }
    }

    @Test
    void theAgentWritesAPipedStdoutItself() throws Exception {
        byte[] data = random(8 << 20, 10);
        assertEquals(0, call(require(), data, "backup_data", config.toString(), KEY + "out").status());
        Process p = start(require(), "restore_data", config.toString(), KEY + "out");
        p.getOutputStream().close();
        InputStream stdout = p.getInputStream();
        byte[] got = new byte[data.length];
        got[0] = (byte) stdout.read();
        signal("STOP", p.pid());
        try {
            CompletableFuture<Integer> rest = CompletableFuture.supplyAsync(() -> {
                try {
                    return stdout.readNBytes(got, 1, data.length - 1);
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertEquals(data.length - 1, rest.get(WAIT.toSeconds(), TimeUnit.SECONDS), "all of stdout while the launcher is stopped");
        } finally {
            signal("CONT", p.pid());
        }
        assertTrue(p.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
        assertEquals(-1, stdout.read());
        assertArrayEquals(data, got);
    }

    @ParameterizedTest(name = "direct stdio {0}")
    @ValueSource(strings = {"on", "off"})
    void aFileStdinIsReadFromTheCallersOffsetAndLeftAtItsEnd(String direct) throws Exception {
        byte[] data = random(3 << 20, 11);
        Path file = tmp.resolve("stdin.bin");
        Files.write(file, data);
        Path after = tmp.resolve("after");
        // As a shell would: one open file, shared by dd, the plugin and wc, each going on where the last stopped.
        String script = "{ dd bs=1000 count=1 of=/dev/null 2>/dev/null; \"$0\" backup_data \"$1\" \"$2\"; echo $? > \"$3.status\"; wc -c > \"$3\"; } < \"$4\"";
        ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", script, home.resolve("bin").resolve(NAME).toString(), config.toString(),
                KEY + "file", after.toString(), file.toString()).directory(tmp.toFile()).redirectErrorStream(true);
        pb.environment().put("GPDEDUP_AGENT_DIR", run.toString());
        pb.environment().putAll(require(direct));
        Process p = pb.start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertEquals("0", Files.readString(tmp.resolve("after.status")).trim(), output);
        assertArrayEquals(java.util.Arrays.copyOfRange(data, 1000, data.length), Files.readAllBytes(TestStorePlugin.objectFile(store, KEY + "file")));
        assertEquals("0", Files.readString(after).trim(), "the plugin must leave the shared offset at the end of the file");
    }

    @Test
    void relaysExitStatusAndStderr() throws Exception {
        Result r = call(require(), new byte[0], "restore_data", config.toString(), KEY + "missing");
        assertEquals(1, r.status());
        assertEquals(0, r.stdout().length);
        assertTrue(r.stderr().contains("no object backups/20261123/20261123045500/gpbackup_0_20261123045500_missing"), r.stderr());
        Result usage = call(require(), new byte[0], "backup_data");
        assertEquals(2, usage.status());
        assertTrue(usage.stderr().contains("usage: " + NAME), usage.stderr());
        Result version = call(require(), new byte[0], "--version");
        assertEquals(0, version.status(), version.stderr());
        assertTrue(version.out().startsWith(NAME + " version "), version.out());
    }

    @Test
    void refusesASocketDirectoryOthersCanAccess() throws Exception {
        Files.createDirectory(run, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwxr-xr-x"));
        Result refused = call(require(), new byte[0], "plugin_api_version");
        assertEquals(1, refused.status());
        assertTrue(refused.stderr().contains("other users can access it; refusing it"), refused.stderr());
        // Without require, the call still works: in-process.
        Result fallback = call(new byte[0], "plugin_api_version");
        assertEquals(0, fallback.status(), fallback.stderr());
        assertEquals("0.5.0\n", fallback.out());
        assertEquals(List.of(), sockets());
        assertEquals(List.of(), agents());
    }

    @Test
    void refusesASocketDirectoryOfAnotherUser() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "changing a directory's owner needs root");
        Files.createDirectory(run, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.setOwner(run, run.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody"));
        Result refused = call(require(), new byte[0], "plugin_api_version");
        assertEquals(1, refused.status());
        assertTrue(refused.stderr().contains("is owned by uid"), refused.stderr());
        assertEquals(List.of(), sockets());
    }

    @Test
    void agentOffRunsInProcess() throws Exception {
        Result b = call(Map.of("GPDEDUP_AGENT", "off"), "in-process".getBytes(StandardCharsets.UTF_8), "backup_data", config.toString(), KEY + "off");
        assertEquals(0, b.status(), b.stderr());
        assertEquals("in-process", Files.readString(TestStorePlugin.objectFile(store, KEY + "off")));
        assertFalse(Files.exists(run), "GPDEDUP_AGENT=off touched the socket directory");
        Result bad = call(Map.of("GPDEDUP_AGENT", "maybe"), new byte[0], "plugin_api_version");
        assertEquals(2, bad.status());
        assertTrue(bad.stderr().contains("GPDEDUP_AGENT must be on, off or require"), bad.stderr());
    }

    @Test
    void concurrentFirstCallsStartOneAgent() throws Exception {
        int n = 6;
        List<CompletableFuture<Result>> calls = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int id = i;
            calls.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return call(require(), random(100_000, id), "backup_data", config.toString(), KEY + "c" + id);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        for (int i = 0; i < n; i++) {
            Result r = calls.get(i).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertEquals(0, r.status(), r.stderr());
            assertArrayEquals(random(100_000, i), Files.readAllBytes(TestStorePlugin.objectFile(store, KEY + "c" + i)));
        }
        assertEquals(1, agents().size(), "agents: " + agents());
    }

    @Test
    void aKilledLauncherCommitsNothing() throws Exception {
        Process p = start(require(), "backup_data", config.toString(), KEY + "killed");
        OutputStream stdin = p.getOutputStream();
        stdin.write(random(2 << 20, 3));
        stdin.flush();
        awaitPartialFile();
        p.destroyForcibly(); // SIGKILL mid-stream: no STDIN_EOF will ever come
        p.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS);
        String failure = TestStorePlugin.awaitFailure(store, KEY + "killed", WAIT);
        assertTrue(failure.contains("before the end of its stdin"), failure);
        assertFalse(Files.exists(TestStorePlugin.objectFile(store, KEY + "killed")));
        Result r = call(require(), new byte[0], "restore_data", config.toString(), KEY + "killed");
        assertEquals(1, r.status());
        assertEquals(0, r.stdout().length);
    }

    @Test
    void losingTheAgentMidCallFailsTheCall() throws Exception {
        Process p = start(require(), "backup_data", config.toString(), KEY + "orphan");
        CompletableFuture<byte[]> err = drain(p.getErrorStream());
        OutputStream stdin = p.getOutputStream();
        stdin.write(random(1 << 20, 4));
        stdin.flush();
        awaitPartialFile();
        List<ProcessHandle> agents = agents();
        assertEquals(1, agents.size());
        agents.get(0).destroyForcibly();
        assertTrue(p.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS), "launcher hung after losing its agent");
        assertNotEquals(0, p.exitValue());
        String stderr = new String(err.get(WAIT.toSeconds(), TimeUnit.SECONDS), StandardCharsets.UTF_8);
        assertTrue(stderr.contains("lost the host agent"), stderr);
        assertFalse(Files.exists(TestStorePlugin.objectFile(store, KEY + "orphan")));
    }

    @Test
    void fallsBackInProcessWhenNoAgentCanStart() throws Exception {
        writeLaunch("io.gpdedup.plugin.agent.NoSuchAgent", TestStorePlugin.class.getName());
        Result r = call("still stored".getBytes(StandardCharsets.UTF_8), "backup_data", config.toString(), KEY + "fb");
        assertEquals(0, r.status(), r.stderr());
        assertEquals("", r.stderr());
        assertEquals("still stored", Files.readString(TestStorePlugin.objectFile(store, KEY + "fb")));
        try (Stream<Path> s = Files.list(run)) {
            assertTrue(s.anyMatch(f -> f.getFileName().toString().endsWith(".failed")), "no failure marker");
        }
        // The failure is remembered: the next call does not try again, and says so when asked to require an agent.
        Result refused = call(require(), new byte[0], "plugin_api_version");
        assertEquals(1, refused.status());
        assertTrue(refused.stderr().contains("failed to start less than"), refused.stderr());
    }

    @Test
    void replacesTheSocketOfAKilledAgent() throws Exception {
        assertEquals(0, call(require(), new byte[0], "plugin_api_version").status());
        List<ProcessHandle> first = agents();
        assertEquals(1, first.size());
        first.get(0).destroyForcibly(); // leaves its socket file behind
        first.get(0).onExit().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertEquals(1, sockets().size(), "stale socket file expected");
        Result r = call(require(), new byte[0], "plugin_api_version");
        assertEquals(0, r.status(), r.stderr());
        List<ProcessHandle> second = agents();
        assertEquals(1, second.size());
        assertNotEquals(first.get(0).pid(), second.get(0).pid());
    }

    /** Waits until an agent of this test holds the pipe that is descriptor {@code fd} of process {@code pid}. */
    private void awaitAgentHolding(long pid, int fd) throws Exception {
        String pipe = Files.readSymbolicLink(Path.of("/proc/" + pid + "/fd/" + fd)).toString();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            for (ProcessHandle agent : agents()) {
                try (Stream<Path> fds = Files.list(Path.of("/proc/" + agent.pid() + "/fd"))) {
                    if (fds.anyMatch(f -> {
                        try {
                            return Files.readSymbolicLink(f).toString().equals(pipe);
                        } catch (IOException e) {
                            return false; // closed meanwhile
                        }
                    })) {
                        return;
                    }
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no agent opened the caller's " + pipe);
            }
            Thread.sleep(10);
        }
    }

    private void awaitPartialFile() throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            if (Files.isDirectory(store)) {
                try (Stream<Path> s = Files.list(store)) {
                    if (s.anyMatch(f -> f.getFileName().toString().startsWith(".partial-"))) {
                        return;
                    }
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the backup never started writing");
            }
            Thread.sleep(20);
        }
    }
}
