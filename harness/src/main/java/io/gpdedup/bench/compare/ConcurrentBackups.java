package io.gpdedup.bench.compare;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * First backups of several unrelated streams at once, as the segments of a cluster run them:
 * gpdedup with every stream into one store, the other tools with a repository per stream (borg
 * locks a repository for the length of a backup). Timed from the first start to the last exit;
 * CPU is every process's: the backup commands (reaped-children time of this JVM over the batch)
 * plus the store and host agent.
 */
final class ConcurrentBackups {
    /**
     * One tool's batch.
     *
     * @param bytes stream bytes backed up in all
     * @param cpuNanos user + system CPU of all the tool's processes over the batch; -1 when unknown
     * @param repoGrowth growth of the repositories on disk, summed
     * @param failure why the batch failed, or null
     */
    record Result(String tool, int streams, long bytes, long wallNanos, long cpuNanos, long repoGrowth, String failure) {
        double mibPerSecond() {
            return ByteSize.mibPerSecond(bytes, wallNanos);
        }

        /** CPU seconds per 10^9 stream bytes. */
        double cpuSecondsPerGB() {
            return cpuNanos < 0 ? Double.NaN : cpuNanos / 1e9 / (bytes / 1e9);
        }
    }

    private ConcurrentBackups() {
    }

    /**
     * Backs up {@code streams[i]} with {@code tools[i]}, or all of them with {@code tools[0]} when
     * there is one tool; opens the tools before and closes them after, untimed.
     */
    static Result run(String name, List<BackupTool> tools, List<StreamFile> streams) {
        long bytes = streams.stream().mapToLong(StreamFile::length).sum();
        ExecutorService pool = Executors.newFixedThreadPool(streams.size());
        try {
            long repo0 = 0;
            long service0 = 0;
            for (BackupTool t : tools) {
                t.open();
                repo0 += t.repositoryBytes();
                service0 += t.serviceCpuNanos();
            }
            long children0 = ProcStat.reapedChildrenCpuNanos();
            long t0 = System.nanoTime();
            List<Future<StepResult>> runs = new ArrayList<>();
            for (int i = 0; i < streams.size(); i++) {
                BackupTool tool = tools.get(tools.size() == 1 ? 0 : i);
                StreamFile stream = streams.get(i);
                String snapshot = stream.step();
                runs.add(pool.submit(() -> tool.backup(stream, snapshot)));
            }
            for (Future<StepResult> r : runs) {
                r.get();
            }
            long wall = System.nanoTime() - t0;
            long children1 = ProcStat.reapedChildrenCpuNanos();
            long service1 = 0;
            long repo1 = 0;
            for (BackupTool t : tools) {
                service1 += t.serviceCpuNanos();
                repo1 += t.repositoryBytes();
            }
            long cpu = children0 < 0 || children1 < 0 ? -1 : children1 - children0 + service1 - service0;
            return new Result(name, streams.size(), bytes, wall, cpu, repo1 - repo0, null);
        } catch (ExecutionException e) {
            return failed(name, streams.size(), bytes, e.getCause());
        } catch (IOException | RuntimeException e) {
            return failed(name, streams.size(), bytes, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return failed(name, streams.size(), bytes, e);
        } finally {
            pool.shutdownNow();
            for (BackupTool t : tools) {
                try {
                    t.close();
                } catch (IOException | RuntimeException e) {
                    System.err.println("could not close " + name + ": " + e.getMessage());
                }
            }
        }
    }

    private static Result failed(String name, int streams, long bytes, Throwable cause) {
        return new Result(name, streams, bytes, 0, -1, 0, String.valueOf(cause.getMessage()));
    }
}
