package io.gpdedup.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The store address lists of option hostname: what they mean, and how a bad one is refused. */
class StoreAddressTest {
    @Test
    void entriesWithoutAPortGetTheDefaultOneAndTheOrderIsKept() {
        assertEquals(List.of(new StoreAddress("node-b", 7500), new StoreAddress("node-a", 7411), new StoreAddress("::1", 7600),
                new StoreAddress("fe80::1", 7411), new StoreAddress("10.0.0.1", 7411)),
                StoreAddress.parseList("node-b:7500, node-a,[::1]:7600,fe80::1 ,[10.0.0.1]", 7411));
        assertEquals(List.of(new StoreAddress("backup-store.example.com", 7411)), StoreAddress.parseList("backup-store.example.com", 7411));
    }

    @Test
    void anIpv6AddressIsWrittenInBracketsWithItsPort() {
        assertEquals("[::1]:7600, node-a:7411", StoreAddress.text(StoreAddress.parseList("[::1]:7600,node-a", 7411)));
    }

    @ParameterizedTest(name = "[{0}] {1}")
    @CsvSource(delimiter = '|', value = {
            "node-a,,node-b | has an empty entry",
            "node-a, | has an empty entry",
            "' ' | has an empty entry",
            "node-a:0 | has port '0' in entry 'node-a:0': a port is 1..65535",
            "node-a:65536 | has port '65536'",
            "node-a:x | has port 'x'",
            "node-a: | has port ''",
            "node-a:-1 | has port '-1'",
            "[::1]:99999 | has port '99999'",
            ":7411 | without a host",
            "[::1 | write an IPv6 address as [address] or [address]:port",
            "[]:7411 | write an IPv6 address as",
            "[::1]7411 | write an IPv6 address as",
            "node-a,NODE-A:7411 | lists NODE-A:7411 twice",
            "node-a:7500,node-b,node-a:7500 | lists node-a:7500 twice",
            "node a | has a space or control character in entry 'node a'",
    })
    void aBadListIsRefusedSayingWhatIsWrong(String text, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StoreAddress.parseList(text, 7411));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void theSameHostOnTwoPortsIsTwoStores() {
        assertEquals(2, StoreAddress.parseList("node-a:7500,node-a:7501", 7411).size());
    }
}
