/**
 * The {@code gpdedup-store} command line: {@code serve} and the admin commands, most of them clients
 * of a running store.
 */
package io.gpdedup.store.cli;
