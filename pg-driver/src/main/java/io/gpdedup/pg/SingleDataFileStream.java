package io.gpdedup.pg;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.function.BooleanSupplier;

/**
 * The single-data-file stream of one backup: one {@code backup_data} call fed with every table's
 * COPY output in TOC order, as gpbackup_helper does, recording where each table starts and ends
 * ([start, end) in the uncompressed stream). Workers fill the tables' {@link BlockPipe}s in any
 * order; {@link #drain()} writes them strictly one after the other.
 */
final class SingleDataFileStream {
    private final PluginRunner.Upload upload;
    private final BlockPipe[] pipes;
    private final long[] start;
    private final long[] end;

    SingleDataFileStream(PluginRunner plugin, String path, int tables, BooleanSupplier cancelled) throws IOException {
        this.upload = plugin.backupData(path);
        this.pipes = new BlockPipe[tables];
        for (int i = 0; i < tables; i++) {
            pipes[i] = new BlockPipe(cancelled);
        }
        this.start = new long[tables];
        this.end = new long[tables];
    }

    /** Where the worker copying table {@code index} writes; close it when the COPY is complete. */
    OutputStream tableOutput(int index) {
        return pipes[index].output();
    }

    /** Writes every table in order, then ends the plugin call; returns the stream's length. */
    long drain() throws IOException {
        long pos = 0;
        OutputStream out = new BufferedOutputStream(upload.stream(), 1 << 16);
        for (int i = 0; i < pipes.length; i++) {
            start[i] = pos;
            byte[] b;
            while ((b = take(i)) != null) {
                try {
                    out.write(b);
                } catch (IOException e) {
                    throw upload.explain(e);
                }
                pos += b.length;
            }
            end[i] = pos;
            pipes[i] = null;
        }
        try {
            out.flush();
        } catch (IOException e) {
            throw upload.explain(e);
        }
        upload.finish();
        return pos;
    }

    private byte[] take(int index) throws IOException {
        try {
            return pipes[index].take();
        } catch (IOException e) {
            upload.abort();
            throw e;
        }
    }

    void abort() {
        upload.abort();
    }

    /** Offsets of table {@code index}, valid after {@link #drain()}. */
    long start(int index) {
        return start[index];
    }

    long end(int index) {
        return end[index];
    }
}
