package io.gpdedup.plugin.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class HookArgumentsTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"\"-1\"|-1", "-1|-1", "\"0\"|0", "0|0", "\"17\"|17"})
    void contentIdsWithOrWithoutQuotes(String raw, int expected) {
        assertEquals(expected, Hook.parseContentId(raw).getAsInt());
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"\"", "\"-2\"", "x", "\"0", "1.5", ""})
    void badContentIds(String raw) {
        assertThrows(PluginException.class, () -> Hook.parseContentId(raw));
    }

    @ParameterizedTest
    @CsvSource({"master,COORDINATOR", "coordinator,COORDINATOR", "segment_host,SEGMENT_HOST", "segment,SEGMENT"})
    void scopesOfGreenplumAndCloudberry(String word, HookScope scope) {
        assertEquals(scope, HookScope.parse(word));
    }

    @ParameterizedTest
    @ValueSource(strings = {"host", "segments", ""})
    void unknownScopes(String word) {
        assertThrows(PluginException.class, () -> HookScope.parse(word));
    }
}
