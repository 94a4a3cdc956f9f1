package io.gpdedup.pg;

/**
 * Where a backup's DDL comes from. {@link #CATALOG}: written by {@link CatalogSchema} from the
 * catalogs (no external tool, one statement per object, so a restore of some tables creates only
 * those). {@link #PG_DUMP}: {@code pg_dump --schema-only} on worker 0's exported snapshot (every
 * object pg_dump knows, but it must be at least as new as the server and comes as one script).
 * {@link #AUTO}: pg_dump when it is on the PATH and works, the catalogs otherwise.
 */
public enum SchemaSource {
    CATALOG, PG_DUMP, AUTO
}
