package io.gpdedup.e2e.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.fixture.Dist;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kit as an admin runs it: {@code bin/gpdedup-bench} of an installation copied away from the
 * repository (no profiles/ beside it, none in the working directory), run from an empty working
 * directory. Its commands find the built-in reference appliance, say which profile they used,
 * and print figures and words for people.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class KitInstallationTest {
    private static final Path DIST = Dist.directory();

    /** Words of the research the reference measurement came from, not of an admin. */
    static final Pattern RESEARCH = Pattern.compile("(?im)\\bseed(003)?\\b|\\bpublished\\b|\\btables? [A-F]\\b|\\b[A-F](-| to |/)[A-F]\\b|^[A-F]\\. ");
    /** Negative zero, E-notation and a double's binary noise. */
    static final Pattern BAD_NUMBER = Pattern.compile("(?<![\\d.])-0\\.0+(?!\\d*[1-9])|\\d\\.\\d+[eE][+-]?\\d|\\d\\.\\d*(0{6,}|9{6,})\\d");

    private Path bench;
    private Path cwd;
    private Path home;

    @BeforeAll
    void copyInstallation(@TempDir Path dir) throws IOException {
        Path exe = DIST.resolve("bin").resolve("gpdedup-bench");
        assertTrue(Files.isExecutable(exe), exe + " is missing: build the distribution first (mvn -B -ntp -q package -DskipTests)");
        Path inst = dir.resolve("gpdedup-kit");
        for (String sub : List.of("bin", "lib")) {
            Files.createDirectories(inst.resolve(sub));
            try (Stream<Path> files = Files.list(DIST.resolve(sub))) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    Path to = inst.resolve(sub).resolve(f.getFileName());
                    try {
                        Files.createLink(to, f);
                    } catch (IOException | UnsupportedOperationException e) {
                        Files.copy(f, to, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                    }
                }
            }
        }
        bench = inst.resolve("bin").resolve("gpdedup-bench");
        cwd = Files.createDirectories(dir.resolve("elsewhere"));
        home = Files.createDirectories(dir.resolve("home"));
        assertFalse(Files.exists(inst.resolveSibling("profiles")) || Files.exists(cwd.resolve("profiles")));
    }

    private record Run(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private Run run(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(bench.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd.toFile());
        pb.environment().put("HOME", home.toString());
        Path out = Files.createTempFile(home, "out", ".txt");
        Path err = Files.createTempFile(home, "err", ".txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        if (!p.waitFor(4, TimeUnit.MINUTES)) {
            p.destroyForcibly();
        }
        return new Run(p.waitFor(), Files.readString(out), Files.readString(err));
    }

    @Test
    void connchkQuickFindsTheReferenceApplianceAndSpeaksPlainly() throws Exception {
        Run r = run("connchk", "--quick", "--quiet", "--out", "connchk");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("reference appliance"), r.toString());
        String info = Files.readString(cwd.resolve("connchk").resolve("run.json"));
        assertTrue(info.contains("profile: built-in reference appliance at scale 0.02"), info);
        assertPlain(r.out() + r.err() + info + Files.readString(cwd.resolve("connchk").resolve("connchk.csv")));
    }

    @Test
    void modelNamesTheBuiltInProfileAndSpeaksPlainly() throws Exception {
        Run r = run("model", "--quiet");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().startsWith("profile: built-in reference appliance;"), r.toString());
        assertPlain(r.out() + r.err());
    }

    @Test
    void aWhatIfNamesItsProfileAndSpellsItsFlagsRounded() throws Exception {
        Run r = run("model", "--quiet", "--hosts", "4", "--table-finish-ms", "67.96", "--out", "whatif");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("profile: built-in reference appliance;"), r.toString());
        String info = Files.readString(cwd.resolve("whatif").resolve("run.json"));
        assertTrue(info.contains("--table-finish-ms 67.96\""), info);
        assertFalse(info.contains("--profile"), "the built-in profile needs no option to be chosen again: " + info);
        assertPlain(r.out() + r.err() + info);
    }

    @Test
    void theScannerCatchesWhatItLooksFor() {
        for (String bad : List.of("error % -0.0", "-3.299616602561173E-4", "--table-finish-ms 67.96000000000001", "A. Synthetic channel test",
                "beside the published figures", "worst error: A-C 5.4%", "profile seed003", "the seed's")) {
            assertTrue(RESEARCH.matcher(bad).find() || BAD_NUMBER.matcher(bad).find(), bad);
        }
        for (String good : List.of("error % 0.0", "-0.1", "67.96", "reference appliance", "Channel test", "10.0")) {
            assertFalse(RESEARCH.matcher(good).find() || BAD_NUMBER.matcher(good).find(), good);
        }
    }

    private static void assertPlain(String output) {
        for (Pattern p : List.of(RESEARCH, BAD_NUMBER)) {
            Matcher m = p.matcher(output);
            assertFalse(m.find(), () -> "'" + m.group() + "' in:\n" + output);
        }
    }
}
