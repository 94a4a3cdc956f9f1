package io.gpdedup.bench.model;

import io.gpdedup.appliance.ApplianceProfile;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The appliance profile a command of the kit runs with: the file given with {@code --profile},
 * else the reference appliance shipped inside the kit (never a file looked up from the working
 * directory, so the kit behaves the same wherever it is run from).
 *
 * @param file the file given, or null for the built-in reference appliance
 * @param calibrated what calibrate measured, for a profile of the admin's own store
 */
public record KitProfile(ApplianceProfile profile, Path file, Optional<Calibrated> calibrated) {
    /** The reference appliance, a resource of the kit's own jar (the repository's profiles/seed003.yaml). */
    static final String BUILT_IN = "/io/gpdedup/bench/profiles/seed003.yaml";

    /** The profile of {@code given}, or the built-in reference appliance when null. */
    public static KitProfile choose(Path given) {
        if (given == null) {
            return new KitProfile(ApplianceProfile.parse(builtInText(), "(built in)"), null, Optional.empty());
        }
        ApplianceProfile p = ApplianceProfile.load(given);
        String text;
        try {
            text = Files.readString(given, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read appliance profile " + given);
        }
        return new KitProfile(p, given, Calibrated.of(text, given.toString()));
    }

    private static String builtInText() {
        try (InputStream in = KitProfile.class.getResourceAsStream(BUILT_IN)) {
            if (in == null) {
                throw new IllegalStateException("the kit is incomplete: its reference appliance " + BUILT_IN + " is missing from its jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What the profile is, for a person: "built-in reference appliance", "your store, calibrated ... (FILE)" or the file. */
    public String describe() {
        if (file == null) {
            return "built-in reference appliance";
        }
        return calibrated.map(c -> c.describe() + ", " + file).orElse(file.toString());
    }

    /** The {@code --profile FILE} that chooses this profile again; empty for the built-in one. */
    public String option() {
        return file == null ? "" : " --profile " + file;
    }
}
