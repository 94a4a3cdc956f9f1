package io.gpdedup.store;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Strict YAML for the files an operator writes by hand (the store config, the appliance profile):
 * a repeated or unknown key, a null where a number belongs or text after the document is an error,
 * and the error is one line that names the file, the key and, where the parser knows it, the line
 * and column. Mapped classes should have fields rather than record components, so that an unknown
 * key is met, and reported, at its own line.
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

    /**
     * The text of {@code file}; {@code what} ("config") names it in the message of the exception
     * {@code error} makes when the file is missing or unreadable.
     */
    public static String readFile(Path file, String what, Function<String, ? extends RuntimeException> error) {
        try {
            return Files.readString(file);
        } catch (NoSuchFileException e) {
            throw error.apply(what + " " + file + " does not exist");
        } catch (IOException e) {
            throw error.apply("cannot read " + what + " " + file + ": " + e.getMessage());
        }
    }

    /**
     * {@code text} mapped to {@code type} by {@code mapper}. An empty document, an unknown key, a
     * value of the wrong type or bad YAML is thrown as the exception {@code error} makes of a
     * message that starts with {@code where} ("config FILE"); {@code expected} tells what a value
     * of one of the file's own classes should be ("a mapping with 'users'"), or null to let the
     * plain types speak.
     */
    public static <T> T read(ObjectMapper mapper, String text, Class<T> type, String where, Function<Class<?>, String> expected,
            Function<String, ? extends RuntimeException> error) {
        T value;
        try {
            JsonNode tree = mapper.readTree(text);
            value = tree == null || tree.isMissingNode() || tree.isNull() ? null : mapper.readValue(text, type);
        } catch (UnrecognizedPropertyException e) {
            throw error.apply(where + at(e.getLocation()) + ": unknown key '" + e.getPropertyName()
                    + "' at " + keyPath(e) + " (known keys there: " + knownKeys(e) + ")");
        } catch (JsonMappingException e) {
            throw error.apply(where + at(e.getLocation()) + ": " + keyPath(e) + ": " + mismatch(e, expected));
        } catch (JsonProcessingException e) {
            throw error.apply(where + syntaxError(e));
        }
        if (value == null) {
            throw error.apply(where + " is empty");
        }
        return value;
    }

    /*
     * The parsers' own messages quote the offending text, and in a config that text is often a
     * password hash (a stray quote, a colon or a bad indent on a users line): stderr and the
     * service journal must never hold one, so the messages below are rebuilt from what the
     * exceptions tell apart, never from the file's text.
     */

    private static String mismatch(JsonMappingException e, Function<Class<?>, String> expected) {
        if (e instanceof MismatchedInputException m && m.getTargetType() != null) {
            String own = expected.apply(m.getTargetType());
            return "expected " + (own != null ? own : expected(m.getTargetType()));
        }
        return "not a valid value here";
    }

    private static String expected(Class<?> type) {
        if (type == Integer.class || type == Long.class || type == int.class || type == long.class) {
            return "a whole number";
        }
        if (type == Double.class || type == double.class) {
            return "a number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (type == String.class) {
            return "a single value, not a list or mapping";
        }
        if (type == List.class) {
            return "a list";
        }
        if (Map.class.isAssignableFrom(type)) {
            return "a mapping of keys to values";
        }
        return "another type of value";
    }

    private static String syntaxError(JsonProcessingException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof MarkedYAMLException y) {
                // context and problem are the parser's fixed phrases; the marks carry the quoted snippets.
                String context = y.getContext() == null ? "" : " (" + y.getContext() + mark(" from", y.getContextMark()) + ")";
                return mark(",", y.getProblemMark()) + ": not valid YAML: " + y.getProblem() + context;
            }
        }
        // Jackson's own syntax errors ("Duplicate field 'x'") name keys only; their later lines may quote the source.
        String message = e.getOriginalMessage() == null ? "not valid YAML" : e.getOriginalMessage();
        int nl = message.indexOf('\n');
        return at(e.getLocation()) + ": " + (nl < 0 ? message : message.substring(0, nl));
    }

    private static String mark(String prefix, Mark mark) {
        return mark == null ? "" : prefix + " line " + (mark.getLine() + 1) + " column " + (mark.getColumn() + 1);
    }

    /** ", line L column C" for a known place, empty otherwise. */
    private static String at(JsonLocation loc) {
        return loc == null || loc.getLineNr() < 1 ? "" : ", line " + loc.getLineNr() + " column " + loc.getColumnNr();
    }

    /** The dotted key path of a mapping error, "top level" when it is empty. */
    private static String keyPath(JsonMappingException e) {
        String p = e.getPath().stream()
                .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                .collect(Collectors.joining("."));
        return p.isEmpty() ? "top level" : p;
    }

    /** The keys allowed where an unknown one was met, sorted and comma-separated. */
    private static String knownKeys(UnrecognizedPropertyException e) {
        return e.getKnownPropertyIds() == null ? "" : e.getKnownPropertyIds().stream()
                .map(Object::toString).sorted().collect(Collectors.joining(", "));
    }
}
