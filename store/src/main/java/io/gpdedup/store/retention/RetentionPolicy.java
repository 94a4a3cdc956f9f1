package io.gpdedup.store.retention;

import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.IsoFields;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Which backup timestamps to keep, as restic's forget does: the newest {@code last}; then, going
 * back from the newest, the newest backup of each of the {@code daily} most recent days that have
 * one, of each of the {@code weekly} most recent ISO weeks, of each of the {@code monthly} most
 * recent months. A backup kept by one rule is kept. A timestamp that is not a calendar date
 * (gpbackup's own tests use such) only counts for {@code last}, and is kept whatever it ranks.
 */
public record RetentionPolicy(int last, int daily, int weekly, int monthly) {
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("uuuuMMddHHmmss");

    public RetentionPolicy {
        if (last < 0 || daily < 0 || weekly < 0 || monthly < 0) {
            throw new IllegalArgumentException("prune: --keep-* counts must not be negative");
        }
        if (last + daily + weekly + monthly == 0) {
            throw new IllegalArgumentException("prune: no --keep-last, --keep-daily, --keep-weekly or --keep-monthly given: that would delete every backup");
        }
    }

    /** For each timestamp (any order), newest first: why it is kept, or an empty list to delete it. */
    public Map<String, List<String>> apply(List<String> timestamps) {
        List<String> newestFirst = new ArrayList<>(timestamps);
        newestFirst.sort((a, b) -> b.compareTo(a));
        Map<String, List<String>> reasons = new LinkedHashMap<>();
        newestFirst.forEach(t -> reasons.put(t, new ArrayList<>()));
        keep(newestFirst, reasons, "last", last, t -> t);
        keep(newestFirst, reasons, "daily", daily, t -> date(t, d -> d.toLocalDate().toString()));
        keep(newestFirst, reasons, "weekly", weekly,
                t -> date(t, d -> d.get(IsoFields.WEEK_BASED_YEAR) + "-W" + d.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR)));
        keep(newestFirst, reasons, "monthly", monthly, t -> date(t, d -> d.getYear() + "-" + d.getMonthValue()));
        for (String t : newestFirst) {
            if (date(t, d -> "") == null) {
                reasons.get(t).add("not a date");
            }
        }
        return reasons;
    }

    private static void keep(List<String> newestFirst, Map<String, List<String>> reasons, String rule, int count,
            Function<String, String> period) {
        Map<String, Boolean> seen = new HashMap<>();
        int left = count;
        for (String t : newestFirst) {
            if (left == 0) {
                return;
            }
            String p = period.apply(t);
            if (p != null && seen.putIfAbsent(p, Boolean.TRUE) == null) {
                reasons.get(t).add(rule + " " + (count - left + 1));
                left--;
            }
        }
    }

    private static String date(String timestamp, Function<LocalDateTime, String> f) {
        try {
            return f.apply(LocalDateTime.parse(timestamp, TIMESTAMP));
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
