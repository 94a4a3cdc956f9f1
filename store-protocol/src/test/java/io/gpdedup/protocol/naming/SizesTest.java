package io.gpdedup.protocol.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SizesTest {
    @ParameterizedTest
    @CsvSource({
        "65536, 65536, 65536",
        "64KiB, 65536, 65536",
        "64KB, 65536, 64000",
        "64k, 65536, 65536",
        "1 mib, 1048576, 1048576",
        "500MB, 524288000, 500000000",
        "1.5GiB, 1610612736, 1610612736",
        "2GB, 2147483648, 2000000000",
        "1TiB, 1099511627776, 1099511627776",
        "0, 0, 0",
    })
    void kiloIsBinaryOrDecimalAsTheCallerSays(String text, long binary, long decimal) {
        assertEquals(binary, Sizes.parse(text));
        assertEquals(decimal, Sizes.parseDecimalKilo(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "KiB", "-1KiB", "1 KiBs", "1XB", "1e9", "1.", ".5MiB", "10000000TiB"})
    void refusesWhatIsNotASize(String text) {
        assertThrows(IllegalArgumentException.class, () -> Sizes.parse(text));
        assertThrows(IllegalArgumentException.class, () -> Sizes.parseDecimalKilo(text));
    }
}
