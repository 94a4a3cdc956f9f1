/**
 * {@code gpdedup-bench model}: the seed's tables A to F at cluster scale from an
 * {@link io.gpdedup.appliance.ApplianceProfile}. {@link io.gpdedup.bench.model.StreamModel}
 * is the fluid model of streams into the appliance (A to C), {@link io.gpdedup.bench.model.BackupModel}
 * the discrete-event model of gpbackup's and gprestore's data phase (D to F) over a
 * {@link io.gpdedup.bench.model.TableMix} on a {@link io.gpdedup.bench.model.Cluster};
 * {@link io.gpdedup.bench.model.Reproduction} sets every cell beside {@link io.gpdedup.bench.model.Published}
 * and {@link io.gpdedup.bench.model.Calibration} says where every parameter comes from.
 * {@link io.gpdedup.bench.model.WhatIf} runs the same model for a site's own cluster, and
 * {@link io.gpdedup.bench.model.StoreCalibration} makes a profile of a real store from what
 * {@code calibrate --host} measured. See docs/appliance.md.
 */
package io.gpdedup.bench.model;
