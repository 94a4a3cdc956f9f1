/**
 * The store's log: rotation, the format of its lines and what it logs of refused connections.
 */
package io.gpdedup.store.log;
