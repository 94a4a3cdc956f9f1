package io.gpdedup.plugin.api.fuzz;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.gpdedup.plugin.api.OptionSpec;
import io.gpdedup.plugin.api.PluginConfig;
import io.gpdedup.plugin.api.PluginException;
import io.gpdedup.plugin.api.PluginOptions;
import io.gpdedup.testsupport.Allocation;
import io.gpdedup.testsupport.Mutator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Mutated plugin configs through {@link PluginConfig#load} and {@link PluginOptions#validate}
 * with a spec of every option type: a config is accepted or refused with a {@link PluginException}
 * (which names the file), nothing else.
 */
class PluginConfigFuzzTest {
    private static final List<OptionSpec> SPECS = List.of(
            OptionSpec.required("hostname", OptionSpec.Type.STRING, "host"),
            OptionSpec.optional("port", OptionSpec.Type.INTEGER, "7411", "port"),
            OptionSpec.optional("restore_subset", OptionSpec.Type.ON_OFF, "on", "subset"),
            OptionSpec.optional("chunk_avg_size", OptionSpec.Type.SIZE, "1MB", "size"),
            OptionSpec.choice("compression", "zstd", List.of("zstd", "lz4", "none"), "codec"),
            OptionSpec.optional("tls_ca_file", OptionSpec.Type.ABSOLUTE_PATH, null, "path"));

    private static final List<byte[]> SAMPLES = List.of(
            "executablepath: /opt/gpdedup/bin/gpbackup_dedup_plugin\noptions:\n  hostname: store1\n  port: \"7411\"\n",
            "executablepath: $HOME/bin/plugin\noptions:\n  hostname: 10.0.0.1\n  restore_subset: \"off\"\n  chunk_avg_size: 4MB\n  compression: lz4\n",
            "executablepath: /bin/p\noptions:\n  hostname: h\n  tls_ca_file: /etc/ca.pem\n  pgport: 5432\n",
            "{executablepath: /bin/p, options: {hostname: h, port: 1}}\n",
            "executablepath: /bin/p\noptions:\n  hostname: &a h\n  port: *a\n")
            .stream().map(s -> s.getBytes(StandardCharsets.UTF_8)).toList();

    @ParameterizedTest
    @ValueSource(longs = {20261123L})
    void mutatedConfigsLoadOrFailCleanly(long seed, @TempDir Path dir) {
        int iterations = Mutator.iterations();
        long[] outcome = new long[2];
        Path file = dir.resolve("plugin.yaml");
        assertTimeoutPreemptively(Duration.ofMinutes(60), () -> {
            Mutator mutator = new Mutator(seed, SAMPLES);
            for (int i = 0; i < iterations; i++) {
                byte[] input = mutator.next();
                Files.write(file, input);
                long before = Allocation.sofar();
                try {
                    PluginOptions.validate(PluginConfig.load(file), "gpbackup_dedup_plugin", SPECS);
                    outcome[0]++;
                } catch (PluginException expected) {
                    assertTrue(expected.getMessage() != null && !expected.getMessage().isBlank(), "an error without a message");
                    outcome[1]++;
                } catch (RuntimeException e) {
                    fail("config threw " + e + ":\n" + new String(input, StandardCharsets.UTF_8), e);
                }
                long allocated = Allocation.sofar() - before;
                if (allocated > (8 << 20) + 256L * input.length) {
                    fail("a config of " + input.length + " bytes made the loader allocate " + allocated + " bytes:\n"
                            + new String(input, StandardCharsets.UTF_8));
                }
            }
        });
        System.out.printf("plugin config fuzz seed %d: %d inputs, %d accepted, %d rejected%n", seed, iterations, outcome[0], outcome[1]);
        assertTrue(outcome[0] > 0 && outcome[1] > 0, "the mutations must reach both outcomes");
    }
}
