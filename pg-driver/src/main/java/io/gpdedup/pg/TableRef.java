package io.gpdedup.pg;

/** One table of a backup: its oid at backup time (the data file name), name, and size on disk (for ordering). */
public record TableRef(long oid, String schema, String name, long diskBytes) {
    /** The quoted, schema-qualified name for SQL. */
    public String sql() {
        return Jdbc.quote(schema) + "." + Jdbc.quote(name);
    }

    /** {@code schema.name} as users type it in filters and read it in reports. */
    public String displayName() {
        return schema + "." + name;
    }

    @Override
    public String toString() {
        return displayName();
    }
}
