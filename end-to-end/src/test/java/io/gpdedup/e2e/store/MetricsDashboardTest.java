package io.gpdedup.e2e.store;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreClient;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.StoreProcess;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every series the Grafana dashboard in docs/grafana queries is on the /metrics of a running
 * {@code dist/bin/gpdedup-store} (after one login and request), and the build, JVM, process and
 * data-directory series are there with values.
 */
@Timeout(120)
class MetricsDashboardTest {
    private static final Pattern SERIES = Pattern.compile("\\b(?:gpdedup_store|jvm|process|system)_[a-z0-9_]+");

    @TempDir
    Path dir;

    @Test
    void everySeriesOfTheDashboardIsExposed() throws Exception {
        JsonNode dashboard = new ObjectMapper().readTree(Dist.directory().getParent().resolve("docs/grafana/gpdedup-store.json").toFile());
        Set<String> used = new TreeSet<>();
        collect(dashboard, used);
        assertTrue(used.size() > 20, "names found in the dashboard: " + used);
        try (StoreProcess store = StoreProcess.start(dir.resolve("home"), List.of("--port", "0", "--metrics-port", "0"))) {
            try (StoreClient c = StoreClient.connect(ClientSettings.of("127.0.0.1", store.port(), StoreProcess.DEMO_UNIT,
                    StoreProcess.DEMO_USER, StoreProcess.DEMO_PASSWORD))) {
                c.stats();
            }
            String text = store.metrics();
            Set<String> missing = new TreeSet<>();
            for (String name : used) {
                if (!Pattern.compile("(?m)^" + name + "[{ ]").matcher(text).find()) {
                    missing.add(name);
                }
            }
            assertTrue(missing.isEmpty(), "dashboard series not on /metrics: " + missing);
            assertTrue(Pattern.compile("(?m)^gpdedup_store_build_info\\{.*version=\"[^\"]+\".*} 1(\\.0)?$").matcher(text).find(), text);
            assertPositive(text, "gpdedup_store_data_dir_free_bytes");
            assertPositive(text, "gpdedup_store_data_dir_used_bytes");
            assertPositive(text, "process_resident_memory_bytes");
            assertPositive(text, "jvm_threads_live_threads");
        }
    }

    /** Every series name in the dashboard's queries (targets and template variables). */
    private static void collect(JsonNode node, Set<String> into) {
        if (node.isTextual()) {
            Matcher m = SERIES.matcher(node.asText());
            while (m.find()) {
                into.add(m.group());
            }
        }
        node.forEach(child -> collect(child, into));
    }

    private static void assertPositive(String text, String name) {
        Matcher m = Pattern.compile("(?m)^" + name + "(?:\\{[^}]*})? (\\S+)$").matcher(text);
        assertTrue(m.find(), name + " missing:\n" + text);
        assertTrue(Double.parseDouble(m.group(1)) > 0, name + " is " + m.group(1));
    }
}
