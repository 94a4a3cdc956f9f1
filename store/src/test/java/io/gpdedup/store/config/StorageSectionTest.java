package io.gpdedup.store.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.store.s3.S3Settings;
import java.net.URI;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The config's {@code storage:} block. */
class StorageSectionTest {
    private static final String HASH = PasswordHash.create("pw".toCharArray(), 1_000).encoded();
    private static final Path BASE = Path.of("/etc/gpdedup");

    private static StoreConfig parse(String storage) {
        return ConfigLoader.parse("data-dir: /srv/store\n" + storage + "units: {u: {users: {a: '" + HASH + "'}}}\n", "t.yaml", BASE);
    }

    @Test
    void everyKeyIsRead() {
        S3Settings s = parse("""
                storage:
                  type: s3
                  endpoint: http://127.0.0.1:9000
                  region: eu-west-1
                  bucket: gpdedup
                  prefix: site1/
                  path-style: true
                  cache-dir: cache
                  cache-bytes: 10GiB
                  lease-seconds: 20
                  request-timeout-seconds: 15
                """).storage();
        assertEquals(URI.create("http://127.0.0.1:9000"), s.endpoint());
        assertEquals("eu-west-1", s.region());
        assertEquals("gpdedup", s.bucket());
        assertEquals("site1/", s.prefix());
        assertTrue(s.pathStyle());
        assertEquals(BASE.resolve("cache"), s.cacheDir());
        assertEquals(10L << 30, s.cacheBytes());
        assertEquals(20, s.leaseSeconds());
        assertEquals(15, s.requestTimeoutSeconds());
        assertNull(s.credentials(), "credentials come from the AWS SDK's default chain, never from the file");
    }

    @Test
    void defaults() {
        assertNull(parse("").storage(), "local storage by default");
        assertNull(parse("storage: {type: local}\n").storage());
        S3Settings s = parse("storage: {type: s3, bucket: b}\n").storage();
        assertNull(s.endpoint(), "AWS for the region");
        assertEquals("us-east-1", s.region());
        assertEquals("", s.prefix());
        assertFalse(s.pathStyle(), "virtual-host style on AWS");
        assertEquals(Path.of("/srv/store/cache"), s.cacheDir());
        assertEquals(S3Settings.DEFAULT_CACHE_BYTES, s.cacheBytes());
        assertEquals(500L << 20, parse("storage: {type: s3, bucket: b, cache-bytes: 500MiB}\n").storage().cacheBytes());
        assertEquals(1234, parse("storage: {type: s3, bucket: b, cache-bytes: 1234}\n").storage().cacheBytes());
        assertTrue(parse("storage: {type: s3, bucket: b, endpoint: 'http://minio:9000'}\n").storage().pathStyle(),
                "path style by default with an endpoint of one's own");
    }

    @Test
    void badValuesAreOneClearLine() {
        String[][] cases = {
            {"storage: {type: ceph}\n", "storage.type must be local or s3, not 'ceph'"},
            {"storage: {type: s3}\n", "storage.bucket is missing"},
            {"storage: {type: local, bucket: b}\n", "storage.type is local, which takes no other storage keys"},
            {"storage: {type: s3, bucket: b, prefix: site1}\n", "prefix must be empty or end with /"},
            {"storage: {type: s3, bucket: b, endpoint: '127.0.0.1:9000'}\n", "storage.endpoint must be an http:// or https:// address"},
            {"storage: {type: s3, bucket: b, cache-bytes: lots}\n", "storage.cache-bytes must be a size such as 10GiB"},
            {"storage: {type: s3, bucket: b, lease-seconds: 2}\n", "lease-seconds must be between 6 and 3600"},
            {"storage: {type: s3, bucket: b, access-key: AKIA}\n", "unknown key 'access-key'"},
        };
        for (String[] c : cases) {
            ConfigLoader.ConfigException e = assertThrows(ConfigLoader.ConfigException.class, () -> parse(c[0]), c[0]);
            assertTrue(e.getMessage().startsWith("config t.yaml"), e.getMessage());
            assertTrue(e.getMessage().contains(c[1]), c[0] + " -> " + e.getMessage());
        }
    }
}
