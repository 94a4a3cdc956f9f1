/**
 * Recipes: the durable description of each committed object (its chunk references, length and
 * stream hash; docs/format.md, section 3), object-name rules and their file-name encoding, and
 * the catalog of a unit's committed objects kept in memory for listing.
 */
package io.gpdedup.store.recipe;
