package io.gpdedup.store.s3;

import io.gpdedup.store.container.Container;

/**
 * The keys of one storage unit in the bucket, relative to the store's prefix (docs/s3.md, layout).
 * Container objects keep the local container file format (docs/format.md section 2), so a record
 * is read with one ranged GET at the offset the index holds.
 */
record UnitKeys(String unit) {
    static final String CONTAINER_SUFFIX = ".ctr";
    static final String INDEX_SUFFIX = ".idx";
    /** What a container's or index object's name is made of after {@link #containers()}: its id's digits, then a suffix. */
    static final String CONTAINER_KEY_CHARS = "0123456789.";

    private String base() {
        return "units/" + unit + "/";
    }

    /** The unit's data keys, wrapped by the key-encryption key (an encrypted unit only). */
    String keys() {
        return base() + "keys";
    }

    String lease() {
        return base() + "lease";
    }

    String containers() {
        return base() + "containers/";
    }

    String container(int id) {
        return containers() + Container.fileName(id);
    }

    /** The index object of a container: its records' fingerprints, offsets and lengths. */
    String containerIndex(int id) {
        return container(id).substring(0, container(id).length() - CONTAINER_SUFFIX.length()) + INDEX_SUFFIX;
    }

    String recipes() {
        return base() + "recipes/";
    }

    String recipe(String fileName) {
        return recipes() + fileName;
    }

    /** The checkpoint of the whole index (the local {@code index.snap} format). */
    String indexCheckpoint() {
        return base() + "index.snap";
    }

    /** The checkpoint of the catalog: every object's name, length, commit time and recipe ETag. */
    String catalogCheckpoint() {
        return base() + "catalog.snap";
    }

    /**
     * The container id in a key under {@link #containers()}, and whether it is the container or
     * its index object; -1 when the key is neither.
     */
    static int idOf(String fileName) {
        if (fileName.endsWith(INDEX_SUFFIX)) {
            return Container.idOf(fileName.substring(0, fileName.length() - INDEX_SUFFIX.length()) + CONTAINER_SUFFIX);
        }
        return Container.idOf(fileName);
    }
}
