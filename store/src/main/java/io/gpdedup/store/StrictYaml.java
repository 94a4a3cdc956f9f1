package io.gpdedup.store;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.util.stream.Collectors;

/**
 * Strict YAML for the files an operator writes by hand (the store config, the appliance profile):
 * a repeated or unknown key, a null where a number belongs or text after the document is an error,
 * and the error's place is told as file line and column. Mapped classes should have fields rather
 * than record components, so that an unknown key is met, and reported, at its own line.
 */
public final class StrictYaml {
    private StrictYaml() {
    }

    /** A mapper that rejects unknown and repeated keys, nulls for primitives and trailing tokens. */
    public static ObjectMapper mapper() {
        return new ObjectMapper(YAMLFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build())
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }

    /** ", line L column C" for a known place, empty otherwise. */
    public static String at(JsonLocation loc) {
        return loc == null || loc.getLineNr() < 1 ? "" : ", line " + loc.getLineNr() + " column " + loc.getColumnNr();
    }

    /**
     * The dotted key path of a mapping error ({@code topLevel} when it is empty); with {@code parent},
     * that of the mapping holding the key (for an unknown key, where it was written).
     */
    public static String keyPath(JsonMappingException e, boolean parent, String topLevel) {
        var refs = e.getPath();
        int end = parent ? Math.max(0, refs.size() - 1) : refs.size();
        String p = refs.subList(0, end).stream()
                .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                .collect(Collectors.joining("."));
        return p.isEmpty() ? topLevel : p;
    }

    /** The keys allowed where an unknown one was met, sorted and comma-separated. */
    public static String knownKeys(UnrecognizedPropertyException e) {
        return e.getKnownPropertyIds() == null ? "" : e.getKnownPropertyIds().stream()
                .map(Object::toString).sorted().collect(Collectors.joining(", "));
    }
}
