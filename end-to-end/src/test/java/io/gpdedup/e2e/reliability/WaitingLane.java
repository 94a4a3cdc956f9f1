package io.gpdedup.e2e.reliability;

/**
 * The lock of the classes that run beside the rest of the end-to-end suite, one at a time
 * ({@code @Execution(CONCURRENT)} with {@code @ResourceLock(WaitingLane.LOCK)}): they spend most of
 * their time waiting on timers, restarts and pauses, which a 2-core machine would otherwise sit
 * through idle. Their tests run one after another in the class's thread (JUnit runs the children of
 * a class that holds a lock in its thread).
 */
final class WaitingLane {
    static final String LOCK = "gpdedup.e2e.waiting-lane";

    private WaitingLane() {
    }
}
