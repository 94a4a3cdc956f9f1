package io.gpdedup.e2e.reliability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The plugin's log files of a test's calls, read as the tests look for a line in them. */
final class PluginLogs {
    private PluginLogs() {
    }

    /** The lines of every log file under {@code logs} (in file name order) that contain {@code text}; none when there is no such directory. */
    static List<String> lines(Path logs, String text) throws IOException {
        if (!Files.isDirectory(logs)) {
            return List.of();
        }
        try (var files = Files.list(logs)) {
            List<String> out = new ArrayList<>();
            for (Path f : (Iterable<Path>) files.sorted()::iterator) {
                Files.readAllLines(f).stream().filter(l -> l.contains(text)).forEach(out::add);
            }
            return out;
        }
    }
}
