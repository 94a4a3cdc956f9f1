/** The store as its operators use it: retention, per-backup figures, admin commands, service files, metrics. */
package io.gpdedup.e2e.store;
