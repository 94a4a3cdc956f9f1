/**
 * Workloads for the harness: seeded, streaming generators of what gpbackup sends the plugin.
 *
 * <p>{@link io.gpdedup.bench.workload.TableVersion} is one version of a table as an ordered list
 * of row runs of one of the generated tables, opened as PostgreSQL COPY text
 * ({@link io.gpdedup.pg.TableShape}: orders, lineitem or accounts);
 * {@link io.gpdedup.bench.workload.Mutation}s model what the database does between two backups.
 * Rows are a pure function of (seed, id, revision), so versions of any size cost no memory.
 * {@link io.gpdedup.bench.workload.ChunkSizeStudy} uses them to choose the chunker's default.
 */
package io.gpdedup.bench.workload;
