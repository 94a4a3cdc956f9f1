package io.gpdedup.plugin.api.fuzz;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.gpdedup.plugin.api.ByteRanges;
import io.gpdedup.plugin.api.PluginException;
import io.gpdedup.testsupport.Allocation;
import io.gpdedup.testsupport.Mutator;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Mutated offsets files: {@link ByteRanges#parse} returns non-empty ranges that are sorted, non-overlapping
 * and non-empty-ended, or throws {@link PluginException}; nothing else, and its allocation stays
 * proportional to the input.
 */
class ByteRangesFuzzTest {
    private static final List<byte[]> SAMPLES = List.of(
            "1 0 10\n", "3 0 5 5 9 100 200\n", "2 0 0 0 0", "1 123456789012 123456789999\r\n",
            "4 1 2 3 4 5 6 7 8\n", "1 0 999999999999999999\n", "2 10 20 30 40")
            .stream().map(s -> s.getBytes(StandardCharsets.US_ASCII)).toList();

    @ParameterizedTest
    @ValueSource(longs = {1L, 20261123L})
    void mutatedOffsetsParseOrFailCleanly(long seed) {
        int iterations = Mutator.iterations();
        long[] outcome = new long[2];
        assertTimeoutPreemptively(Duration.ofMinutes(30), () -> {
            Mutator mutator = new Mutator(seed, SAMPLES);
            for (int i = 0; i < iterations; i++) {
                String text = new String(mutator.next(), StandardCharsets.ISO_8859_1);
                long before = Allocation.sofar();
                try {
                    ByteRanges r = ByteRanges.parse(text);
                    long previousEnd = 0;
                    for (int k = 0; k < r.count(); k++) {
                        // Empty ranges write nothing and may stand anywhere; the others ascend.
                        boolean empty = r.end(k) == r.start(k);
                        assertTrue(r.end(k) >= r.start(k) && (empty || r.start(k) >= previousEnd), () -> "accepted bad ranges from '" + text + "'");
                        previousEnd = empty ? previousEnd : r.end(k);
                    }
                    outcome[0]++;
                } catch (PluginException expected) {
                    outcome[1]++;
                } catch (RuntimeException e) {
                    fail("offsets '" + text + "' threw " + e, e);
                }
                long allocated = Allocation.sofar() - before;
                if (allocated > (1 << 20) + 64L * text.length()) {
                    fail("offsets of " + text.length() + " chars made the parser allocate " + allocated + " bytes: '" + text + "'");
                }
            }
        });
        System.out.printf("offsets fuzz seed %d: %d inputs, %d accepted, %d rejected%n", seed, iterations, outcome[0], outcome[1]);
        assertTrue(outcome[0] > 0 && outcome[1] > 0, "the mutations must reach both outcomes");
    }
}
