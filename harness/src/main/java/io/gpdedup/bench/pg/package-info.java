/**
 * {@code gpdedup-bench pg} ({@link io.gpdedup.bench.pg.PgCommand}): the command line over the
 * PostgreSQL driver of module pg-driver ({@code io.gpdedup.pg}): start a server, generate and mutate
 * tables, back up and restore them through a plugin, verify, report.
 */
package io.gpdedup.bench.pg;
