import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * Runs the named JUnit test classes outside Maven (so a long fuzz run does not hold a module's
 * target directory) and exits non-zero if any failed. Used by scripts/reliability fuzz.
 */
public class FuzzLauncher {
    public static void main(String[] args) {
        LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
        for (String c : args) {
            request.selectors(selectClass(c));
        }
        LauncherDiscoveryRequest built = request.build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        long t0 = System.nanoTime();
        launcher.execute(built, summary);
        TestExecutionSummary s = summary.getSummary();
        s.printFailuresTo(new java.io.PrintWriter(System.out, true), 20);
        System.out.printf("%s: %d tests, %d failed, %.1f s%n", String.join(" ", args), s.getTestsFoundCount(),
                s.getTotalFailureCount(), (System.nanoTime() - t0) / 1e9);
        System.exit(s.getTotalFailureCount() == 0 && s.getTestsFoundCount() > 0 ? 0 : 1);
    }
}
