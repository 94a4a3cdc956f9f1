package io.gpdedup.store.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.StoreClient;
import io.gpdedup.protocol.report.VerifyReport;
import io.gpdedup.store.container.Container;
import io.gpdedup.store.net.StoreFixture;
import io.gpdedup.testsupport.Damage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * One damaged byte in a container's header, through a real server over its socket: every chunk
 * of the container still restores byte for byte, {@code VERIFY} reports the header (and only it),
 * and a restart that rebuilds the index by scanning the containers still serves every object. The
 * same for the header's copy, for both, and for the headers of version 1 containers (no copy),
 * which stores written before format version 2 hold.
 */
@Timeout(120)
class ContainerHeaderDamageTest {
    private static final int OBJECTS = 3;
    private static final int CHUNK = 8192;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "flip byte {0}: {1}")
    @CsvSource(delimiter = '|', value = {
        "3  | header damaged (its copy is intact)",
        "13 | header damaged (its copy is intact)",
        "26 | header copy damaged (the header is intact)",
        "3,26 | header and its copy damaged; records are read without them"})
    void aDamagedHeaderCostsNoChunk(String offsets, String problem) throws Exception {
        Map<String, byte[]> objects = backUp();
        Path container = firstContainer();
        for (String o : offsets.split(",")) {
            Damage.flipByte(container, Integer.parseInt(o.trim()));
        }
        checkServes(objects, "container 00000001.ctr: " + problem, false);
        checkServes(objects, "container 00000001.ctr: " + problem, true);
    }

    @Test
    void versionOneContainersAreStillReadAndTheirHeaderDamageReported() throws Exception {
        Map<String, byte[]> objects = backUp();
        Path container = firstContainer();
        // The same records behind the header a version 1 store wrote: magic, version 1, id; no copy, no checksum.
        byte[] v2 = Files.readAllBytes(container);
        ByteBuffer v1 = ByteBuffer.allocate(v2.length - Container.HEADER_BYTES + Container.V1_HEADER_BYTES);
        v1.put("GPDCNTR1".getBytes(StandardCharsets.US_ASCII)).putInt(1).putInt(1);
        v1.put(v2, Container.HEADER_BYTES, v2.length - Container.HEADER_BYTES);
        Files.write(container, v1.array());
        Files.delete(dir.resolve("units").resolve(StoreFixture.UNIT_A).resolve("index.snap")); // its offsets are the version 2 file's
        checkServes(objects, null, false);

        Damage.flipByte(container, 9);
        checkServes(objects, "container 00000001.ctr: header damaged; records are read without it", true);
    }

    /** Three objects in unit A through the server; returns them by name. The server is stopped after. */
    private Map<String, byte[]> backUp() {
        Map<String, byte[]> objects = new LinkedHashMap<>();
        try (StoreFixture store = StoreFixture.start(dir); StoreClient client = store.connectA()) {
            for (int i = 0; i < OBJECTS; i++) {
                byte[] data = ObjectIo.random(40 + i, 200_000 + i * 7);
                ObjectIo.write(client, "obj/" + i, data, CHUNK);
                objects.put("obj/" + i, data);
            }
        }
        return objects;
    }

    /**
     * Starts the server on the damaged data (without the index snapshot when {@code rescan}, so the
     * index is rebuilt from the containers), restores every object and verifies.
     */
    private void checkServes(Map<String, byte[]> objects, String problem, boolean rescan) throws IOException {
        if (rescan) {
            Files.deleteIfExists(dir.resolve("units").resolve(StoreFixture.UNIT_A).resolve("index.snap"));
        }
        try (StoreFixture store = StoreFixture.start(dir); StoreClient client = store.connectA()) {
            for (var e : objects.entrySet()) {
                assertArrayEquals(e.getValue(), ObjectIo.read(client, e.getKey()), e.getKey() + (rescan ? " after a rescan" : ""));
            }
            VerifyReport report = client.verify();
            assertEquals(List.of(), report.damagedObjects(), report.toString());
            assertEquals(problem == null ? List.of() : List.of(problem), report.problems(), report.toString());
            assertEquals(OBJECTS, report.objectsChecked());
            assertTrue(report.chunksChecked() >= OBJECTS * (200_000 / CHUNK), report.toString());
        }
    }

    private Path firstContainer() throws IOException {
        try (Stream<Path> files = Files.list(dir.resolve("units").resolve(StoreFixture.UNIT_A).resolve("containers"))) {
            return files.filter(p -> p.getFileName().toString().equals(Container.fileName(1))).findFirst().orElseThrow();
        }
    }
}
