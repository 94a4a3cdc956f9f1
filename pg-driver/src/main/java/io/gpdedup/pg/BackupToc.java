package io.gpdedup.pg;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The YAML files of a backup besides its metadata: the coordinator's config ({@link Config}) and
 * TOC ({@link Toc}: one entry per table with its oid, row count and bytes), and in
 * single-data-file mode the segment TOC in gpbackup_helper's own shape
 * ({@code dataentries: {<oid>: {startbyte, endbyte}}}).
 */
public final class BackupToc {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER))
            .setSerializationInclusion(JsonInclude.Include.NON_NULL);

    private BackupToc() {
    }

    /** How the backup was taken: a restore needs the mode and the COPY format. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Config(@JsonProperty("timestamp") String timestamp, @JsonProperty("databasename") String database,
            @JsonProperty("singledatafile") boolean singleDataFile, @JsonProperty("jobs") int jobs,
            @JsonProperty("copyqueuesize") int copyQueueSize, @JsonProperty("copyoptions") String copyOptions,
            @JsonProperty("backupversion") String backupVersion) {
    }

    /** One table's data in the backup. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record DataEntry(@JsonProperty("oid") long oid, @JsonProperty("schema") String schema, @JsonProperty("name") String name,
            @JsonProperty("rowscopied") long rows, @JsonProperty("bytes") long bytes) {
        public String displayName() {
            return schema + "." + name;
        }

        public String sql() {
            return Jdbc.quote(schema) + "." + Jdbc.quote(name);
        }
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Toc(@JsonProperty("dataentries") List<DataEntry> dataEntries) {
    }

    /** [startbyte, endbyte) of one table in the single-data-file stream. */
    public record Range(@JsonProperty("startbyte") long start, @JsonProperty("endbyte") long end) {
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record SegmentToc(@JsonProperty("dataentries") Map<Long, Range> dataEntries) {
        public SegmentToc {
            dataEntries = new LinkedHashMap<>(dataEntries);
        }
    }

    public static void write(Path file, Object value) throws IOException {
        YAML.writeValue(file.toFile(), value);
    }

    public static <T> T read(Path file, Class<T> type) throws IOException {
        try {
            return YAML.readValue(file.toFile(), type);
        } catch (IOException e) {
            throw new IOException(file + " is not a valid " + type.getSimpleName() + ": " + e.getMessage(), e);
        }
    }
}
