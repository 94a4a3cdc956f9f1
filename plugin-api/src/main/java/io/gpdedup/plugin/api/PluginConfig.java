package io.gpdedup.plugin.api;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.JacksonYAMLParseException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * A {@code --plugin-config} file, read as strictly as gpbackup reads it: top-level keys
 * {@code executablepath} (required, absolute after expanding environment variables) and
 * {@code options} (a flat map of scalars). Anything else is an error naming the file, key and line.
 */
public final class PluginConfig {
    private static final long MAX_CONFIG_BYTES = 1 << 20;

    private final Path file;
    private final String executablePath;
    private final Map<String, String> options;
    private final Map<String, Integer> optionLines;

    private PluginConfig(Path file, String executablePath, Map<String, String> options, Map<String, Integer> optionLines) {
        this.file = file;
        this.executablePath = executablePath;
        this.options = Collections.unmodifiableMap(options);
        this.optionLines = Collections.unmodifiableMap(optionLines);
    }

    public static PluginConfig load(Path file) {
        byte[] bytes;
        try {
            if (Files.size(file) > MAX_CONFIG_BYTES) {
                throw new PluginException(file + ": plugin config is larger than " + MAX_CONFIG_BYTES + " bytes");
            }
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new PluginException("plugin config " + file + " does not exist", e);
        } catch (AccessDeniedException e) {
            throw new PluginException("cannot read plugin config " + file + ": permission denied", e);
        } catch (IOException e) {
            throw new PluginException("cannot read plugin config " + file + ": " + firstLine(e.getMessage()), e);
        }
        try (JsonParser p = new YAMLFactory().createParser(bytes)) {
            return parse(file, p);
        } catch (JacksonYAMLParseException e) {
            throw syntaxError(file, e);
        } catch (IOException e) {
            throw new PluginException(file + ": plugin config is not valid YAML: " + firstLine(e.getMessage()), e);
        }
    }

    /** "file:line:column: ...", from where the YAML scanner found the problem (its marks count from 0). */
    private static PluginException syntaxError(Path file, JacksonYAMLParseException e) {
        if (e.getCause() instanceof MarkedYAMLException m && m.getProblemMark() != null) {
            Mark mark = m.getProblemMark();
            String context = m.getContext() == null ? "" : " (" + m.getContext() + ")";
            return new PluginException(file + ":" + (mark.getLine() + 1) + ":" + (mark.getColumn() + 1) + ": plugin config is not valid YAML: "
                    + firstLine(m.getProblem()) + context, e);
        }
        JsonLocation at = e.getLocation();
        String where = at == null || at.getLineNr() < 1 ? "" : ":" + at.getLineNr() + ":" + at.getColumnNr();
        return new PluginException(file + where + ": plugin config is not valid YAML: " + firstLine(e.getOriginalMessage()), e);
    }

    private static PluginConfig parse(Path file, JsonParser p) throws IOException {
        JsonToken t = p.nextToken();
        if (t == null) {
            throw error(file, p, "plugin config is empty; expected executablepath and options");
        }
        if (t != JsonToken.START_OBJECT) {
            throw error(file, p, "plugin config must be a mapping with executablepath and options");
        }
        String exe = null;
        Map<String, String> options = new LinkedHashMap<>();
        Map<String, Integer> lines = new LinkedHashMap<>();
        boolean sawOptions = false;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            int keyLine = line(p);
            JsonToken v = p.nextToken();
            switch (key) {
                case "executablepath":
                    if (exe != null) {
                        throw error(file, keyLine, "duplicate key 'executablepath'");
                    }
                    if (!v.isScalarValue() || v == JsonToken.VALUE_NULL) {
                        throw error(file, keyLine, "key 'executablepath' must be a path");
                    }
                    exe = p.getText();
                    break;
                case "options":
                    if (sawOptions) {
                        throw error(file, keyLine, "duplicate key 'options'");
                    }
                    sawOptions = true;
                    if (v == JsonToken.VALUE_NULL) {
                        break;
                    }
                    if (v != JsonToken.START_OBJECT) {
                        throw error(file, keyLine, "key 'options' must be a mapping of option names to values");
                    }
                    readOptions(file, p, options, lines);
                    break;
                default:
                    throw error(file, keyLine, "unknown key '" + key + "' (only executablepath and options are allowed)");
            }
        }
        if (t != JsonToken.END_OBJECT) {
            throw error(file, p, "unexpected content in plugin config");
        }
        if (p.nextToken() != null) {
            throw error(file, p, "plugin config holds more than one YAML document");
        }
        if (exe == null) {
            throw new PluginException(file + ": missing required key 'executablepath'");
        }
        String expanded = expandEnvironment(exe, System.getenv());
        if (!expanded.startsWith("/")) {
            throw new PluginException(file + ": executablepath '" + exe + "' must be an absolute path");
        }
        return new PluginConfig(file, expanded, options, lines);
    }

    private static void readOptions(Path file, JsonParser p, Map<String, String> options, Map<String, Integer> lines) throws IOException {
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            int keyLine = line(p);
            JsonToken v = p.nextToken();
            if (!v.isScalarValue()) {
                throw error(file, keyLine, "option '" + key + "' must be a single value, not a list or mapping");
            }
            if (options.containsKey(key)) {
                throw error(file, keyLine, "duplicate option '" + key + "'");
            }
            options.put(key, v == JsonToken.VALUE_NULL ? "" : p.getText());
            lines.put(key, keyLine);
        }
        if (t != JsonToken.END_OBJECT) {
            throw error(file, p, "malformed options mapping");
        }
    }

    /** Go's os.ExpandEnv: {@code $NAME} and {@code ${NAME}}; unset names expand to nothing. */
    static String expandEnvironment(String s, Map<String, String> env) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '$' || i + 1 >= s.length()) {
                out.append(c);
                continue;
            }
            int start;
            int end;
            int resume;
            if (s.charAt(i + 1) == '{') {
                end = s.indexOf('}', i + 2);
                if (end < 0) {
                    out.append(c);
                    continue;
                }
                start = i + 2;
                resume = end + 1;
            } else {
                start = i + 1;
                end = start;
                while (end < s.length() && (Character.isLetterOrDigit(s.charAt(end)) || s.charAt(end) == '_')) {
                    end++;
                }
                if (end == start) {
                    out.append(c);
                    continue;
                }
                resume = end;
            }
            String value = env.get(s.substring(start, end));
            if (value != null) {
                out.append(value);
            }
            i = resume - 1;
        }
        return out.toString();
    }

    private static int line(JsonParser p) {
        JsonLocation loc = p.currentTokenLocation();
        return loc == null ? -1 : loc.getLineNr();
    }

    private static PluginException error(Path file, JsonParser p, String message) {
        return error(file, line(p), message);
    }

    static PluginException error(Path file, int line, String message) {
        return new PluginException(file + (line > 0 ? ":" + line : "") + ": " + message);
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    public Path file() {
        return file;
    }

    public String executablePath() {
        return executablePath;
    }

    /** The raw options, in file order. */
    public Map<String, String> options() {
        return options;
    }

    int lineOf(String option) {
        return optionLines.getOrDefault(option, -1);
    }
}
