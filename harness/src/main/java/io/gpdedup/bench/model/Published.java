package io.gpdedup.bench.model;

import java.util.List;

/**
 * The seed's published figures (docs: seed-figures.md, tables A to F) that the model is held to.
 * MB/s with MB = 2<sup>20</sup> bytes; a D–F speed is the database's size over the wall time.
 */
public final class Published {
    private Published() {
    }

    /** Table A: synthetic channel test, threads → MB/s. */
    public static final int[] A_THREADS = {1, 5, 10, 20, 30};
    public static final double[] A_MBPS = {204, 1280, 2560, 3413, 2560};

    /** Table B: isolated plugin, one host, files in parallel → MB/s; and the tail with 2 of 10 files left. */
    public static final int[] B_THREADS = {1, 10, 20};
    public static final double[] B_MBPS = {150, 1110, 1100};
    public static final double B_TWO_LEFT_MBPS = 235;

    /** Table C: 10 threads per host; per-host MB/s by host count, and the totals. */
    public static final int[] C_HOSTS = {2, 4, 8};
    public static final double[][] C_PER_HOST = {
        {1096, 998},
        {552, 556, 552, 548},
        {278, 279, 279, 279, 280, 279, 278, 280},
    };
    public static final double[] C_TOTAL = {2040, 2160, 2180};

    /** Which tables a D–F run backs up. */
    public enum Tables { ALL, LARGE, SMALL }

    /** Where a backup goes. */
    public enum Target { APPLIANCE, LOCAL_FS_PLUGIN, LOCAL_FS }

    /** gpbackup's data-phase layout. */
    public enum Mode { JOBS, SINGLE_DATA_FILE }

    /**
     * What a gpbackup or gprestore run does, the model's input: its data-phase layout, workers
     * ({@code jobs}, jobs mode) or queue ({@code copyQueue}, single-data-file), which tables, where
     * to, and whether the data is already there ({@code repeat}) or read back ({@code restore}).
     */
    public record Scenario(Mode mode, int jobs, int copyQueue, Tables tables, Target target, boolean repeat, boolean restore) {
    }

    /** One published gpbackup/gprestore run (tables D, E, F). */
    public record Run(int row, String table, String label, Mode mode, int jobs, int copyQueue, Tables tables,
            Target target, boolean repeat, boolean restore, double terabytes, double minutes, double mbps) {
        public Scenario scenario() {
            return new Scenario(mode, jobs, copyQueue, tables, target, repeat, restore);
        }
    }

    public static final List<Run> RUNS = List.of(
            new Run(1, "D", "multi-file (jobs)", Mode.JOBS, 15, 0, Tables.ALL, Target.APPLIANCE, false, false, 3, 720, 72),
            new Run(2, "D", "same, repeated", Mode.JOBS, 15, 0, Tables.ALL, Target.APPLIANCE, true, false, 3, 630, 82),
            new Run(3, "D", "single-data-file", Mode.SINGLE_DATA_FILE, 1, 20, Tables.ALL, Target.APPLIANCE, false, false, 3, 58, 889),
            new Run(4, "D", "same, repeated", Mode.SINGLE_DATA_FILE, 1, 20, Tables.ALL, Target.APPLIANCE, true, false, 3, 38, 1334),
            new Run(5, "D", "sdf, large tables only", Mode.SINGLE_DATA_FILE, 1, 20, Tables.LARGE, Target.APPLIANCE, false, false, 2, 13, 2640),
            new Run(6, "D", "same, repeated", Mode.SINGLE_DATA_FILE, 1, 20, Tables.LARGE, Target.APPLIANCE, true, false, 2, 2, 14186),
            new Run(7, "D", "sdf, small tables only", Mode.SINGLE_DATA_FILE, 1, 20, Tables.SMALL, Target.APPLIANCE, false, false, 0.6, 33, 300),
            new Run(8, "E", "multi-file, plugin to local FS", Mode.JOBS, 15, 0, Tables.ALL, Target.LOCAL_FS_PLUGIN, false, false, 3, 14, 3829),
            new Run(9, "E", "multi-file, no plugin", Mode.JOBS, 15, 0, Tables.ALL, Target.LOCAL_FS, false, false, 3, 15, 3557),
            new Run(10, "E", "single-data-file", Mode.SINGLE_DATA_FILE, 1, 60, Tables.ALL, Target.LOCAL_FS, false, false, 3, 35, 1498),
            new Run(11, "E", "single-data-file", Mode.SINGLE_DATA_FILE, 1, 50, Tables.ALL, Target.LOCAL_FS, false, false, 3, 35, 1485),
            new Run(12, "E", "single-data-file", Mode.SINGLE_DATA_FILE, 1, 40, Tables.ALL, Target.LOCAL_FS, false, false, 3, 30, 1709),
            new Run(13, "E", "single-data-file", Mode.SINGLE_DATA_FILE, 1, 30, Tables.ALL, Target.LOCAL_FS, false, false, 3, 36, 1421),
            new Run(14, "E", "single-data-file", Mode.SINGLE_DATA_FILE, 1, 25, Tables.ALL, Target.LOCAL_FS, false, false, 3, 37, 1416),
            new Run(15, "E", "single-data-file", Mode.SINGLE_DATA_FILE, 1, 20, Tables.ALL, Target.LOCAL_FS, false, false, 3, 38, 1365),
            new Run(16, "E", "single-data-file", Mode.SINGLE_DATA_FILE, 1, 10, Tables.ALL, Target.LOCAL_FS, false, false, 3, 39, 1325),
            new Run(17, "E", "single-data-file", Mode.SINGLE_DATA_FILE, 1, 5, Tables.ALL, Target.LOCAL_FS, false, false, 3, 46, 1137),
            new Run(18, "F", "gprestore single-data-file", Mode.SINGLE_DATA_FILE, 1, 5, Tables.LARGE, Target.APPLIANCE, false, true, 2, 47, 715));

    public static Run run(int row) {
        return RUNS.stream().filter(r -> r.row() == row).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no published run " + row));
    }
}
