package io.gpdedup.bench.pg;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.gpdedup.pg.TableFilter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Shared by the {@code pg} subcommands: turns expected failures (bad arguments, unreachable
 * database, failing plugin) into one clear line on stderr and exit status 1 instead of a stack
 * trace, and writes results as JSON for {@code pg report}.
 */
abstract class PgSubcommand implements Callable<Integer> {
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    abstract int execute() throws Exception;

    @Override
    public final Integer call() {
        try {
            return execute();
        } catch (IllegalArgumentException | IOException | SQLException e) {
            System.err.println("gpdedup-bench " + spec.qualifiedName().replace("gpdedup-bench ", "") + ": " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            System.err.println("gpdedup-bench: interrupted");
            return 130;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Writes {@code {"kind": kind, "result": value}} for {@code pg report}. */
    static void writeResult(Path file, String kind, Object value) throws IOException {
        if (file == null) {
            return;
        }
        if (file.toAbsolutePath().getParent() != null) {
            Files.createDirectories(file.toAbsolutePath().getParent());
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("kind", kind);
        doc.put("result", value);
        JSON.writeValue(file.toFile(), doc);
    }

    /** The table filter options gpbackup and gprestore share. */
    static final class Filter {
        @Option(names = "--include-table", paramLabel = "SCHEMA.TABLE", description = "only these tables (pattern with * and ?; repeatable)")
        List<String> includeTables = new ArrayList<>();

        @Option(names = "--exclude-table", paramLabel = "SCHEMA.TABLE", description = "not these tables (pattern; repeatable)")
        List<String> excludeTables = new ArrayList<>();

        @Option(names = "--include-schema", paramLabel = "SCHEMA", description = "only tables of these schemas (repeatable)")
        List<String> includeSchemas = new ArrayList<>();

        @Option(names = "--exclude-schema", paramLabel = "SCHEMA", description = "not tables of these schemas (repeatable)")
        List<String> excludeSchemas = new ArrayList<>();

        TableFilter toFilter() {
            return new TableFilter(includeTables, excludeTables, includeSchemas, excludeSchemas);
        }
    }

    static String megabytes(long bytes) {
        return String.format(java.util.Locale.ROOT, "%.1f MB", bytes / 1e6);
    }

    static Path defaultLocalDir() {
        return Path.of(System.getProperty("java.io.tmpdir"), "gpdedup-pg-backups");
    }
}
