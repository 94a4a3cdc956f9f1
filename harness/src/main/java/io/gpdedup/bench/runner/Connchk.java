package io.gpdedup.bench.runner;

import io.gpdedup.client.BackupSession;
import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.IntFunction;
import java.util.function.LongConsumer;

/**
 * The ddpconnchk-like channel test: N threads, each one connection and one backup stream of unique
 * data straight to the store through {@link StoreClient}. Every stream is connected and has its
 * lease open before the clock starts, so the run measures the channel, not the logins; the clock
 * stops when the last commit is durable. {@link #read} is the way back, one object per thread.
 */
final class Connchk {
    private Connchk() {
    }

    /** Object name of stream {@code i} of run {@code run}. */
    static String objectName(long run, int threads, int i) {
        return "connchk/run" + run + "/t" + threads + "/stream" + i;
    }

    /** What one thread does once its connection (and lease) is ready and the clock runs. */
    interface Job {
        void run(StoreClient client, BackupSession session, int stream) throws Exception;
    }

    public static StreamRun write(LiveStore store, int threads, long bytesPerStream, long run, LongConsumer progress)
            throws InterruptedException {
        return parallel(store.settings(), threads, bytesPerStream, true, i -> objectName(run, threads, i), (client, session, i) ->
                SyntheticStream.write(session, objectName(run, threads, i), new UniqueData(UniqueData.seed(run, i)),
                        bytesPerStream, progress));
    }

    public static StreamRun read(LiveStore store, int threads, long bytesPerStream, long run, LongConsumer progress)
            throws InterruptedException {
        return parallel(store.settings(), threads, bytesPerStream, false, i -> objectName(run, threads, i), (client, session, i) ->
                SyntheticStream.read(client, objectName(run, threads, i), progress));
    }

    /**
     * Runs {@code job} on {@code threads} threads, each with its own connection (and, for a backup,
     * its lease) open before the clock starts; the run ends when the last job returns.
     */
    static StreamRun parallel(ClientSettings settings, int threads, long bytes, boolean backup, IntFunction<String> name, Job job)
            throws InterruptedException {
        CountDownLatch arrived = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(threads);
        long[] ends = new long[threads];
        String[] failures = new String[threads];
        boolean[] abort = new boolean[1];
        for (int i = 0; i < threads; i++) {
            int stream = i;
            Thread t = new Thread(() -> {
                boolean counted = false;
                try (StoreClient client = StoreClient.connect(settings);
                     BackupSession session = backup ? client.beginBackup() : null) {
                    arrived.countDown();
                    counted = true;
                    go.await();
                    if (!abort[0]) {
                        job.run(client, session, stream);
                    }
                } catch (Exception e) {
                    // the client's and the pipeline's messages name the store and the object
                    failures[stream] = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
                } finally {
                    if (!counted) {
                        arrived.countDown();
                    }
                    ends[stream] = System.currentTimeMillis();
                    done.countDown();
                }
            }, "connchk-" + i);
            t.setDaemon(true);
            t.start();
        }
        arrived.await();
        for (String f : failures) {
            if (f != null) {
                abort[0] = true;
                go.countDown();
                done.await();
                throw new IllegalStateException("a connchk stream failed before the start: " + f);
            }
        }
        long start = System.currentTimeMillis();
        go.countDown();
        done.await();
        List<StreamRun.Stream> streams = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            streams.add(new StreamRun.Stream(name.apply(i), 0, failures[i] == null ? bytes : 0, ends[i], failures[i]));
        }
        return new StreamRun(threads + " threads", start, streams);
    }
}
