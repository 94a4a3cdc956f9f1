package io.gpdedup.bench.model;

/**
 * The database cluster the model backs up: its shape and what gpbackup's data phase costs on it
 * apart from the target. These are properties of the seed's Greenplum cluster and its data, not of
 * the appliance, which is why the two per-table costs may be fitted on table E: those runs write to
 * the hosts' own disks with no plugin and no appliance. docs/appliance.md argues each value.
 *
 * @param hosts segment hosts (the seed: 22)
 * @param segmentsPerHost primary segments per host (an assumption: 8)
 * @param csvInflation bytes COPY writes per byte of table data (the seed: "30–40% larger")
 * @param csvCompression how much the appliance library's compression shrinks the unique CSV it
 *     sends: an assumption, 2.0, the middle of the vendor's 1.5 to 2.5 for a first full backup; not
 *     fitted (the seed publishes no ratio)
 * @param copyStartSeconds time from handing a table to a COPY until its first bytes reach the
 *     helper: dispatch to every segment, process start; hidden by copy-queue-size unless the queue
 *     is short (fitted on table E row 17, queue 5)
 * @param tableFinishSeconds per table, per segment, the serial cost of ending one table's
 *     COPY and moving on to the next (fitted on table E row 15, queue 20)
 */
public record Cluster(int hosts, int segmentsPerHost, double csvInflation, double csvCompression,
        double copyStartSeconds, double tableFinishSeconds) {

    public Cluster {
        if (hosts < 1 || segmentsPerHost < 1) {
            throw new IllegalArgumentException("a cluster needs at least one host and one segment per host");
        }
        if (!(csvInflation >= 1) || !(csvCompression >= 1)) {
            throw new IllegalArgumentException("csv inflation and compression must be at least 1");
        }
        if (!(copyStartSeconds >= 0) || !(tableFinishSeconds >= 0)) {
            throw new IllegalArgumentException("per-table costs must be >= 0");
        }
    }

    /** The seed's cluster: two costs fitted on table E, the rest published or assumed (docs/appliance.md). */
    public static Cluster seed003() {
        return new Cluster(22, 8, 1.35, 2.0, 0.3548, 0.06796);
    }

    public int segments() {
        return hosts * segmentsPerHost;
    }

    Cluster withSegmentsPerHost(int n) {
        return new Cluster(hosts, n, csvInflation, csvCompression, copyStartSeconds, tableFinishSeconds);
    }

    Cluster withCsvCompression(double v) {
        return new Cluster(hosts, segmentsPerHost, csvInflation, v, copyStartSeconds, tableFinishSeconds);
    }

    Cluster withCopyStartSeconds(double v) {
        return new Cluster(hosts, segmentsPerHost, csvInflation, csvCompression, v, tableFinishSeconds);
    }

    Cluster withTableFinishSeconds(double v) {
        return new Cluster(hosts, segmentsPerHost, csvInflation, csvCompression, copyStartSeconds, v);
    }
}
