package io.gpdedup.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The orders table's own formatting of timestamps and amounts, against java.time and PostgreSQL's text forms. */
class OrdersTableFieldsTest {
    @Test
    void timestampsMatchJavaTimeAndTrimFractionLikePostgres() {
        SplittableRandom random = new SplittableRandom(8);
        byte[] buf = new byte[64];
        for (int i = 0; i < 10_000; i++) {
            long second = random.nextLong(-2_000_000_000L, 6_000_000_000L);
            int micros = i % 3 == 0 ? 0 : i % 3 == 1 ? random.nextInt(1_000_000) : 10 * random.nextInt(100_000);
            String got = new String(buf, 0, OrdersTable.writeTimestamp(second, micros, buf, 0), StandardCharsets.US_ASCII);
            String expected = LocalDateTime.ofEpochSecond(second, micros * 1000, ZoneOffset.UTC).toString().replace('T', ' ');
            if (micros == 0 && second % 60 == 0) {
                expected += ":00"; // java.time drops zero seconds; PostgreSQL does not
            }
            if (expected.contains(".")) {
                expected = expected.replaceAll("0+$", "");
            }
            assertEquals(expected, got, "epoch second " + second + ", micros " + micros);
        }
    }

    @ParameterizedTest(name = "{0} cents -> {1}")
    @CsvSource({"0, 0.00", "5, 0.05", "100, 1.00", "-123, -1.23", "499999999, 4999999.99", "-7, -0.07"})
    void amountsHaveTwoDecimals(long cents, String expected) {
        byte[] buf = new byte[32];
        assertEquals(expected, new String(buf, 0, CopyText.writeCents(cents, buf, 0), StandardCharsets.US_ASCII));
    }
}
