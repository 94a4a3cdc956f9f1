package io.gpdedup.protocol.report;

import java.util.List;

/** What verify found: counts, and the objects that cannot be restored byte for byte (empty when healthy). */
public record VerifyReport(long chunksChecked, long bytesChecked, long objectsChecked, List<String> damagedObjects, List<String> problems) {
    public boolean ok() {
        return damagedObjects.isEmpty() && problems.isEmpty();
    }
}
