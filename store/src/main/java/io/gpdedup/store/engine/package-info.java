/**
 * The store's engine: storage units holding chunk containers, a fingerprint index and recipes, with
 * group commit, garbage collection and verification. No networking here: the server and tests call
 * this API directly.
 */
package io.gpdedup.store.engine;
