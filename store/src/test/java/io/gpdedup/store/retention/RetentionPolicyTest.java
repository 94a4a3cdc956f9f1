package io.gpdedup.store.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class RetentionPolicyTest {
    // Two backups a day on 1, 2 and 3 March 2026 (a Sunday, Monday, Tuesday), one on 27 February and one on 10 January.
    private static final List<String> TIMESTAMPS = List.of("20260110120000", "20260227120000", "20260301010000", "20260301230000",
            "20260302010000", "20260302230000", "20260303010000", "20260303230000");

    private static List<String> kept(RetentionPolicy p, List<String> timestamps) {
        return p.apply(timestamps).entrySet().stream().filter(e -> !e.getValue().isEmpty()).map(Map.Entry::getKey)
                .collect(Collectors.toList());
    }

    @Test
    void keepLastKeepsTheNewest() {
        assertEquals(List.of("20260303230000", "20260303010000"), kept(new RetentionPolicy(2, 0, 0, 0), TIMESTAMPS));
    }

    @Test
    void keepDailyKeepsTheNewestOfEachDayWithBackups() {
        assertEquals(List.of("20260303230000", "20260302230000", "20260301230000", "20260227120000"),
                kept(new RetentionPolicy(0, 4, 0, 0), TIMESTAMPS));
    }

    @Test
    void keepWeeklyUsesIsoWeeks() {
        // 1 March 2026 is a Sunday: it ends ISO week 9, which 27 February belongs to as well.
        assertEquals(List.of("20260303230000", "20260301230000", "20260110120000"), kept(new RetentionPolicy(0, 0, 3, 0), TIMESTAMPS));
    }

    @Test
    void keepMonthlyAndRulesAddUp() {
        Map<String, List<String>> plan = new RetentionPolicy(1, 0, 0, 3).apply(TIMESTAMPS);
        assertEquals(List.of("last 1", "monthly 1"), plan.get("20260303230000"));
        assertEquals(List.of("monthly 2"), plan.get("20260227120000"));
        assertEquals(List.of("monthly 3"), plan.get("20260110120000"));
        assertTrue(plan.get("20260303010000").isEmpty());
        assertEquals(TIMESTAMPS.size(), plan.size());
    }

    @Test
    void aTimestampThatIsNotADateIsKept() {
        List<String> withOdd = List.of("99999998765432", "20260301010000", "20260302010000");
        assertEquals(List.of("20260302010000", "99999998765432"), kept(new RetentionPolicy(0, 1, 0, 0), withOdd).stream().sorted().toList());
        assertEquals(List.of("not a date"), new RetentionPolicy(0, 1, 0, 0).apply(withOdd).get("99999998765432"));
    }

    @Test
    void noRuleIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RetentionPolicy(0, 0, 0, 0));
        assertTrue(e.getMessage().contains("delete every backup"), e.getMessage());
    }
}
