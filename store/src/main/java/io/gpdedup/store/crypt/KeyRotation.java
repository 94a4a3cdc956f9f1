package io.gpdedup.store.crypt;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Moves every encrypted unit's data keys from one key-encryption key to the next, on a stopped
 * store, without touching containers. First every unit gets its data keys wrapped by the new key
 * beside the old wrapping (each unit's keys file is replaced atomically), and only once all have
 * it are the old wrappings dropped: at every moment each unit opens with the new key or with both,
 * and a run cut off anywhere is finished by running it again with the same two keys.
 */
public final class KeyRotation {
    /** What a run did: the units whose keys it re-wrapped (or found re-wrapped already). */
    public record Result(List<String> units) {
    }

    private KeyRotation() {
    }

    /** Re-wraps the data keys of every encrypted unit under {@code unitsDir} from {@code current} to {@code next}. */
    public static Result rotate(Path unitsDir, Kek current, Kek next) throws IOException {
        List<Path> units = new ArrayList<>();
        if (Files.isDirectory(unitsDir)) {
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(unitsDir)) {
                for (Path p : ds) {
                    if (Files.isDirectory(p) && DataKeys.present(p) && !p.getFileName().toString().startsWith(".")) {
                        units.add(p);
                    }
                }
            }
        }
        units.sort(null);
        // Opening every unit first: a key that opens none of one unit stops the run before any file changes.
        List<DataKeys> opened = new ArrayList<>();
        for (Path u : units) {
            String name = u.getFileName().toString();
            DataKeys k = DataKeys.open(u, name, opensWith(u, name, next) ? next : current);
            opened.add(k);
        }
        for (int i = 0; i < units.size(); i++) {
            opened.get(i).addWrapping(units.get(i), next);
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; i < units.size(); i++) {
            opened.get(i).keepOnly(units.get(i), next);
            names.add(units.get(i).getFileName().toString());
        }
        return new Result(names);
    }

    private static boolean opensWith(Path unitDir, String unit, Kek kek) throws IOException {
        try {
            DataKeys.open(unitDir, unit, kek);
            return true;
        } catch (KeyException e) {
            return false;
        }
    }
}
