/**
 * gpbackup's naming, reproduced for the suite: 14-digit timestamps, local backup directories and
 * the file and key names in them, and per-host plugin config files under a /tmp-style directory.
 */
package io.gpdedup.e2e.layout;
