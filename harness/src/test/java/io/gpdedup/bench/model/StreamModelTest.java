package io.gpdedup.bench.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.appliance.ApplianceProfile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StreamModelTest {
    static final ApplianceProfile PROFILE = ApplianceProfile.load(Path.of("..", "profiles", "seed003.yaml"));

    /** Max-min fairness: within every cap, and each flow is held by its own cap or a full group where none gets more. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void waterFillIsMaxMinFair(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int n = 1 + rnd.nextInt(30);
        double[] cap = new double[n];
        for (int i = 0; i < n; i++) {
            cap[i] = 1 + rnd.nextDouble() * 100;
        }
        List<int[]> groups = new ArrayList<>();
        List<Double> capacity = new ArrayList<>();
        int hosts = 1 + rnd.nextInt(4);
        for (int h = 0; h < hosts; h++) {
            final int host = h;
            groups.add(java.util.stream.IntStream.range(0, n).filter(i -> i % hosts == host).toArray());
            capacity.add(10 + rnd.nextDouble() * 300);
        }
        groups.add(java.util.stream.IntStream.range(0, n).toArray());
        capacity.add(50 + rnd.nextDouble() * 500);
        double[] rate = StreamModel.waterFill(cap, groups, capacity);
        for (int i = 0; i < n; i++) {
            assertTrue(rate[i] <= cap[i] + 1e-6);
        }
        for (int g = 0; g < groups.size(); g++) {
            double sum = 0;
            for (int i : groups.get(g)) {
                sum += rate[i];
            }
            assertTrue(sum <= capacity.get(g) + 1e-6, "group " + g + " over capacity");
        }
        for (int i = 0; i < n; i++) {
            if (rate[i] >= cap[i] - 1e-6) {
                continue;
            }
            boolean held = false;
            for (int g = 0; g < groups.size(); g++) {
                int[] members = groups.get(g);
                final int flow = i;
                if (java.util.Arrays.stream(members).noneMatch(m -> m == flow)) {
                    continue;
                }
                double sum = java.util.Arrays.stream(members).mapToDouble(m -> rate[m]).sum();
                double max = java.util.Arrays.stream(members).mapToDouble(m -> rate[m]).max().orElse(0);
                if (sum >= capacity.get(g) - 1e-6 && rate[i] >= max - 1e-6) {
                    held = true;
                }
            }
            assertTrue(held, "flow " + i + " could get more");
        }
    }

    @Test
    void finishedStreamsTakeTheirShareWithThem() {
        StreamModel m = new StreamModel(PROFILE);
        double ten = m.equalFiles(StreamModel.Source.PLUGIN, 1, 10, 1000).totalMBps();
        double twoLeft = m.tailMBps(10, 2);
        double alone = m.equalFiles(StreamModel.Source.PLUGIN, 1, 1, 1000).totalMBps();
        assertTrue(twoLeft < 2 * alone, "two streams left move less than two lone streams");
        assertTrue(twoLeft < ten * 2 / 10 * 1.2 && twoLeft > ten * 2 / 10, "they keep about their pool share");
    }

    @Test
    void timelineAddsUpToTheBytesMoved() {
        StreamModel.Result r = new StreamModel(PROFILE).run(StreamModel.Source.PLUGIN, new double[][] {{500, 1500}, {2000}});
        double sum = 0;
        for (double[] host : r.hostTimeline()) {
            for (double v : host) {
                sum += v;
            }
        }
        assertEquals(4000, sum, 1e-6);
    }
}
