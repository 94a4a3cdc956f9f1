/**
 * Backups as gpbackup names them: grouping a unit's objects by backup, which backups a
 * retention policy keeps, what each backup brought, and whether a backup can be restored.
 */
package io.gpdedup.store.retention;
