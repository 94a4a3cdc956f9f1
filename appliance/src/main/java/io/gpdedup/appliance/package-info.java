/**
 * The simulated deduplicating appliance: an {@link io.gpdedup.appliance.ApplianceProfile}
 * (loaded from a YAML file such as profiles/seed003.yaml) says what streams, files, lookups and
 * reads cost on the seed's appliance, as mechanisms in reference units with one global scale
 * factor; the throttle in this package applies a profile to the store's real traffic, and the
 * harness's cluster model applies the same profile to simulated traffic. See docs/appliance.md.
 */
package io.gpdedup.appliance;
