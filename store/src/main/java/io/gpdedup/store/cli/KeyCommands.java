package io.gpdedup.store.cli;

import io.gpdedup.store.config.ConfigLoader;
import io.gpdedup.store.config.StoreConfig;
import io.gpdedup.store.config.StorePaths;
import io.gpdedup.store.container.OwnerOnly;
import io.gpdedup.store.crypt.Kek;
import io.gpdedup.store.crypt.KeyException;
import io.gpdedup.store.crypt.KeyRotation;
import io.gpdedup.store.crypt.KeySource;
import io.gpdedup.store.crypt.UnitConversion;
import io.gpdedup.store.engine.DedupStoreEngine;
import io.gpdedup.store.s3.BucketConversion;
import io.gpdedup.store.s3.BucketKeyRotation;
import io.gpdedup.store.s3.LeaseHeldException;
import io.gpdedup.store.s3.S3Settings;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The commands of encryption at rest (docs/store.md, "Encryption at rest"). */
final class KeyCommands {
    private KeyCommands() {
    }

    @Command(name = "new-key", mixinStandardHelpOptions = true,
            description = "Writes a new random key-encryption key to FILE (mode 0600), for encryption.key-file. Never overwrites a file.")
    static final class NewKey implements Callable<Integer> {
        @Parameters(paramLabel = "FILE", description = "the key file to create")
        Path file;

        @Override
        public Integer call() {
            Kek kek = Kek.generate();
            try {
                // Created 0600 from the start: never a moment where another user could open it.
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (FileAlreadyExistsException e) {
                System.err.println("gpdedup-store new-key: " + file + " already exists: a key file is never overwritten");
                return 2;
            } catch (IOException | UnsupportedOperationException e) {
                System.err.println("gpdedup-store new-key: cannot create " + file + ": " + e.getMessage());
                return 1;
            }
            try {
                Files.write(file, kek.toText().getBytes(StandardCharsets.US_ASCII), StandardOpenOption.WRITE);
                io.gpdedup.store.container.FileSync.syncFile(file);
            } catch (IOException e) {
                System.err.println("gpdedup-store new-key: cannot write " + file + ": " + e.getMessage());
                try {
                    Files.deleteIfExists(file);
                } catch (IOException ignored) {
                    // Reported above; a half-written key file fails to parse, never passes for a key.
                }
                return 1;
            }
            System.out.println("wrote key " + kek.id() + " to " + file);
            return 0;
        }
    }

    /** What the offline commands share: the config, its key, and the data directory held while they run. */
    abstract static class Offline implements Callable<Integer> {
        @Option(names = "--config", paramLabel = "FILE", description = "the store's config (default: ~/.gpdedup/store.yaml)")
        Path config;

        abstract String name();

        abstract int run(StoreConfig cfg, Kek kek) throws IOException;

        @Override
        public Integer call() {
            StoreConfig cfg;
            Kek kek;
            try {
                cfg = ConfigLoader.load(config != null ? config : StorePaths.defaultConfigFile());
                if (cfg.encryption() == null) {
                    throw new KeyException("the config has no encryption: set encryption.key-file or encryption.key-command");
                }
                kek = cfg.encryption().load();
            } catch (ConfigLoader.ConfigException | KeyException e) {
                System.err.println("gpdedup-store " + name() + ": " + e.getMessage());
                return 2;
            }
            Path dataDir = cfg.dataDir();
            try (FileChannel ch = OwnerOnly.open(OwnerOnly.createDirectories(dataDir).resolve(DedupStoreEngine.LOCK_FILE),
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                if (DedupStoreEngine.tryLock(ch) == null) {
                    System.err.println("gpdedup-store " + name() + ": the store on " + dataDir + " is running: stop it first");
                    return 1;
                }
                return run(cfg, kek);
            } catch (KeyException e) {
                System.err.println("gpdedup-store " + name() + ": " + e.getMessage());
                return 2;
            } catch (IOException e) {
                System.err.println("gpdedup-store " + name() + ": " + e.getMessage() + " (nothing is lost: run it again)");
                return 1;
            }
        }
    }

    @Command(name = "rotate-key", mixinStandardHelpOptions = true,
            description = {"Re-wraps every encrypted unit's data keys (with storage.type s3: those of the config's units in the bucket)"
                + " from the config's key to the key in --new-key-file, on a stopped store; containers are not rewritten."
                + " Safe to run again if cut off.",
                "Then point encryption.key-file (or the key command) at the new key."})
    static final class RotateKey extends Offline {
        @Option(names = "--new-key-file", required = true, paramLabel = "FILE", description = "the new key (made with new-key)")
        Path newKeyFile;

        @Override
        String name() {
            return "rotate-key";
        }

        @Override
        int run(StoreConfig cfg, Kek kek) throws IOException {
            Kek next = new KeySource(newKeyFile.toAbsolutePath(), null).load();
            if (next.id().equals(kek.id())) {
                throw new KeyException("--new-key-file " + newKeyFile + " holds the configured key " + kek.id() + ": make a new one with new-key");
            }
            List<String> units = cfg.storage() != null
                    ? BucketKeyRotation.rotate(cfg.storage(), cfg.dataDir(), cfg.units().keySet(), kek, next)
                    : KeyRotation.rotate(cfg.dataDir().resolve("units"), kek, next).units();
            System.out.println("re-wrapped the data keys of " + units.size() + " unit(s) " + units + " under key " + next.id()
                    + "; key " + kek.id() + " no longer opens them: point the config at " + newKeyFile);
            return 0;
        }
    }

    @Command(name = "encrypt-unit", mixinStandardHelpOptions = true,
            description = "Converts a plaintext storage unit (on local disk, or with storage.type s3 in the bucket, under the unit's"
                + " lease) to an encrypted one under the config's key, on a stopped store. Safe to run again if cut off; a unit"
                + " already encrypted is left as it is.")
    static final class EncryptUnit extends Offline {
        @Parameters(paramLabel = "UNIT", description = "the storage unit")
        String unit;

        @Override
        String name() {
            return "encrypt-unit";
        }

        @Override
        int run(StoreConfig cfg, Kek kek) throws IOException {
            if (cfg.storage() != null) {
                return inBucket(cfg, kek);
            }
            Path dir = cfg.dataDir().resolve("units").resolve(unit);
            if (unit.startsWith(".") || unit.contains("/") || !Files.isDirectory(dir)) {
                System.err.println("gpdedup-store encrypt-unit: no storage unit '" + unit + "' in " + cfg.dataDir());
                return 2;
            }
            UnitConversion.Result r = UnitConversion.convert(dir, unit, kek);
            if (r.alreadyEncrypted()) {
                System.out.println("unit " + unit + " is already encrypted under key " + kek.id());
            } else {
                System.out.println("unit " + unit + " encrypted under key " + kek.id() + ": " + r.containers() + " container(s), "
                        + r.records() + " chunk(s), " + r.recipes() + " recipe(s)"
                        + (r.damagedBytes() > 0 ? "; " + r.damagedBytes() + " damaged bytes were skipped, as verify reports them" : ""));
            }
            return 0;
        }

        private int inBucket(StoreConfig cfg, Kek kek) throws IOException {
            S3Settings s3 = cfg.storage();
            Optional<BucketConversion.Result> done;
            try {
                done = unit.isEmpty() || unit.startsWith(".") || unit.contains("/") ? Optional.empty()
                        : BucketConversion.convert(s3, cfg.dataDir(), unit, kek);
            } catch (LeaseHeldException e) {
                System.err.println("gpdedup-store encrypt-unit: " + e.getMessage());
                return 2;
            }
            if (done.isEmpty()) {
                System.err.println("gpdedup-store encrypt-unit: no storage unit '" + unit + "' in bucket " + s3.bucket()
                        + (s3.prefix().isEmpty() ? "" : " under prefix " + s3.prefix()));
                return 2;
            }
            BucketConversion.Result r = done.get();
            if (r.alreadyEncrypted()) {
                System.out.println("unit " + unit + " is already encrypted under key " + kek.id());
                return 0;
            }
            System.out.println("unit " + unit + " encrypted under key " + kek.id() + ": " + r.containers() + " container(s), "
                    + r.records() + " chunk(s), " + r.recipes() + " recipe(s) sealed"
                    + (r.damagedBytes() > 0 ? "; " + r.damagedBytes() + " damaged bytes were skipped, as verify reports them" : "")
                    + (r.kept() > 0 ? "; " + r.kept() + " plaintext object version(s) stay in the bucket, held by their retention locks"
                        + " (hidden from listings; the bucket's lifecycle rule frees them once the retention ends)" : ""));
            return 0;
        }
    }
}
