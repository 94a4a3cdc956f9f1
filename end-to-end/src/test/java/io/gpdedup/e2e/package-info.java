/**
 * The plugin conformance suite: the gpbackup storage-plugin contract (API 0.5.0, plus what
 * gpbackup, gpbackup_helper and plugins/plugin_test.sh rely on in practice), checked against every
 * executable in {@code dist/bin} exactly as gpbackup would call it. One test class per part of the
 * contract; each runs once per {@link io.gpdedup.e2e.fixture.PluginFixture}.
 */
package io.gpdedup.e2e;
