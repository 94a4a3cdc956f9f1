/**
 * The live side of the appliance reproduction: a real gpdedup-store serving through an appliance
 * profile, driven by the client library ({@code connchk}, table A), by the real
 * gpbackup_dedup_plugin on simulated hosts ({@code isolated}, tables B and C), and by a small
 * gpbackup data phase ({@code gpbackup-sim}); {@code calibrate} runs A to C and says whether the
 * profile validates. Rates and sizes are the reference's times the profile's scale; results are
 * reported back in the reference's MB/s. With {@code --host}, {@code connchk} and {@code calibrate}
 * test a real gpdedup-store instead ({@link io.gpdedup.bench.runner.StoreTarget},
 * {@link io.gpdedup.bench.runner.StoreCheck}), and {@code calibrate} writes a profile of it.
 */
package io.gpdedup.bench.runner;
