package io.gpdedup.e2e.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpdedup.e2e.fixture.StoreProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The directories a store creates (the units directory, a unit's, its containers/ and recipes/)
 * survive a crash with what is in them: {@code dist/bin/gpdedup-store} started on an empty data
 * directory under strace fsyncs the parent of each directory after it created it. The control: the
 * trace does show each mkdir, so a missing fsync is not a missing trace.
 */
@Timeout(300)
class DirectorySyncTest {
    private static final Pattern CALL = Pattern.compile("^(\\d+)\\s+(?:<\\.\\.\\. (\\w+) resumed>(.*)|(\\w+)\\((.*))$");
    private static final Pattern PATH = Pattern.compile("\"([^\"]+)\"");
    private static final Pattern RESULT = Pattern.compile("=\\s+(-?\\d+)");

    @TempDir
    Path dir;

    @Test
    void theParentOfEachDirectoryTheStoreCreatesIsFsyncedAfterIt() throws Exception {
        assumeTrue(canTrace(), "strace is not available or may not trace here");
        Path home = dir.resolve("store-home");
        Path data = home.resolve("data");
        StoreProcess.writeConfig(home, "data-dir: " + data + "\n", "dir-sync-password", 1_000);
        Path trace = dir.resolve("trace.txt");
        StoreProcess store = StoreProcess.startTraced(home, trace, "mkdir,mkdirat,openat,fsync");
        store.close();

        Trace t = Trace.read(Files.readAllLines(trace));
        Path unit = data.resolve("units").resolve(StoreProcess.UNIT);
        for (Path created : List.of(data.resolve("units"), unit, unit.resolve("containers"), unit.resolve("recipes"))) {
            assertTrue(t.made.contains(created.toString()), "the trace shows the mkdir of " + created + ": " + t.made);
            assertTrue(t.syncedAfterMade(created), created.getParent() + " was not fsynced after " + created + " was made; fsynced: " + t.synced);
        }
    }

    private static boolean canTrace() {
        try {
            Process p = new ProcessBuilder("strace", "-qq", "-e", "trace=none", "true").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor() == 0;
        } catch (Exception e) {
            return false;
        }
    }

    /** The directories made and the paths fsynced, in the order the trace shows them. */
    private static final class Trace {
        final Set<String> made = new LinkedHashSet<>();
        final List<String> synced = new ArrayList<>();
        final Map<String, Integer> madeAt = new HashMap<>();
        final List<Integer> syncedAt = new ArrayList<>();

        static Trace read(List<String> lines) {
            Trace t = new Trace();
            Map<String, String> pendingCall = new HashMap<>(); // pid -> "call\0args" of an unfinished call
            Map<String, String> openPaths = new HashMap<>(); // fd -> last path opened under it (the JVM's threads share fds)
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = CALL.matcher(lines.get(i));
                if (!m.matches()) {
                    continue;
                }
                String pid = m.group(1);
                String call;
                String text;
                if (m.group(2) != null) {
                    String started = pendingCall.remove(pid);
                    if (started == null) {
                        continue;
                    }
                    call = m.group(2);
                    text = started + m.group(3);
                } else {
                    call = m.group(4);
                    text = m.group(5);
                    if (text.endsWith("<unfinished ...>")) {
                        pendingCall.put(pid, text.substring(0, text.length() - "<unfinished ...>".length()));
                        continue;
                    }
                }
                Matcher r = RESULT.matcher(text);
                int result = -1;
                while (r.find()) {
                    result = Integer.parseInt(r.group(1));
                }
                Matcher p = PATH.matcher(text);
                String path = p.find() ? p.group(1) : null;
                if ((call.equals("mkdir") || call.equals("mkdirat")) && result == 0 && path != null) {
                    t.made.add(path);
                    t.madeAt.put(path, i);
                } else if (call.equals("openat") && result >= 0 && path != null) {
                    openPaths.put(String.valueOf(result), path);
                } else if (call.equals("fsync")) {
                    String fd = text.substring(0, text.indexOf(')'));
                    String synced = openPaths.get(fd.trim());
                    if (synced != null && result == 0) {
                        t.synced.add(synced);
                        t.syncedAt.add(i);
                    }
                }
            }
            assertEquals(t.synced.size(), t.syncedAt.size());
            return t;
        }

        boolean syncedAfterMade(Path created) {
            Integer at = madeAt.get(created.toString());
            String parent = created.getParent().toString();
            for (int i = 0; i < synced.size(); i++) {
                if (synced.get(i).equals(parent) && syncedAt.get(i) > at) {
                    return true;
                }
            }
            return false;
        }
    }
}
