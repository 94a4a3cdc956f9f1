package io.gpdedup.store.net;

/**
 * Counts the requests the server has accepted and not yet answered, so that a stop can refuse new
 * ones and wait for those (commits above all) to finish.
 */
final class RequestGate {
    private int inFlight;
    private boolean closed;

    /** Admits a request unless the server is stopping. */
    synchronized boolean enter() {
        if (closed) {
            return false;
        }
        inFlight++;
        return true;
    }

    synchronized void exit() {
        if (--inFlight == 0) {
            notifyAll();
        }
    }

    synchronized boolean closed() {
        return closed;
    }

    /** Refuses new requests from now on and waits up to {@code timeoutNanos} for the admitted ones. */
    synchronized boolean closeAndAwait(long timeoutNanos) throws InterruptedException {
        closed = true;
        long deadline = System.nanoTime() + timeoutNanos;
        while (inFlight > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(left / 1_000_000L + 1);
        }
        return true;
    }

    synchronized int inFlight() {
        return inFlight;
    }
}
