/**
 * The live appliance reproduction as a test: {@code gpdedup-bench calibrate --quick} from
 * {@code dist/bin}, a real gpdedup-store serving through profiles/seed003.yaml, and the published
 * shapes of tables A to C asserted on the CSV it writes.
 */
package io.gpdedup.e2e.bench;
