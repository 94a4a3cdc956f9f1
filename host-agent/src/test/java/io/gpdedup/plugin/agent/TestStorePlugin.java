package io.gpdedup.plugin.agent;

import io.gpdedup.plugin.api.ByteRanges;
import io.gpdedup.plugin.api.Hook;
import io.gpdedup.plugin.api.OptionSpec;
import io.gpdedup.plugin.api.PluginDefinition;
import io.gpdedup.plugin.api.PluginException;
import io.gpdedup.plugin.api.PluginLog;
import io.gpdedup.plugin.api.PluginOptions;
import io.gpdedup.plugin.api.PluginProcess;
import io.gpdedup.plugin.api.RemoteDirectory;
import io.gpdedup.plugin.api.StorageBackend;
import io.gpdedup.plugin.api.StoredData;
import io.gpdedup.protocol.naming.BackupTimestamp;
import io.gpdedup.protocol.naming.RemoteName;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;

/**
 * A test plugin storing objects as flat files in option {@code directory}, committed by rename only
 * after stdin ended cleanly. When reading stdin fails it leaves {@code failed-<file name>} holding the
 * error, so tests in this JVM or another can see what the backend saw.
 */
public final class TestStorePlugin implements PluginDefinition {
    static final String NAME = "gpbackup_teststore_plugin";

    public static void main(String[] args) {
        PluginProcess.main(new TestStorePlugin(), args);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<OptionSpec> options() {
        return List.of(OptionSpec.required("directory", OptionSpec.Type.ABSOLUTE_PATH, "where objects go"));
    }

    @Override
    public StorageBackend open(PluginOptions options, PluginLog log) {
        return new Backend(Paths.get(options.require("directory")));
    }

    static Path objectFile(Path directory, String key) {
        return directory.resolve(RemoteName.fromLocalPath(key).fileName());
    }

    static Path failureFile(Path directory, String key) {
        return directory.resolve("failed-" + RemoteName.fromLocalPath(key).fileName());
    }

    /**
     * The stdin failure the backup of {@code key} recorded, once it has: the file exists, empty,
     * between its creation and its write, so its content is what is waited for.
     */
    static String awaitFailure(Path directory, String key, java.time.Duration wait) throws InterruptedException {
        Path p = failureFile(directory, key);
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            try {
                String s = Files.readString(p);
                if (!s.isEmpty()) {
                    return s;
                }
            } catch (IOException e) {
                // not there yet
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no failure recorded in " + p + " within " + wait);
            }
            Thread.sleep(20);
        }
    }

    private static final class Backend implements StorageBackend {
        private final Path dir;

        Backend(Path dir) {
            this.dir = dir;
        }

        @Override
        public void hook(Hook hook) {
        }

        @Override
        public void backupData(RemoteName name, InputStream in) throws IOException {
            Files.createDirectories(dir);
            Path tmp = dir.resolve(".partial-" + name.fileName() + "-" + Thread.currentThread().getId());
            try {
                try (OutputStream out = Files.newOutputStream(tmp)) {
                    in.transferTo(out);
                }
                Files.move(tmp, dir.resolve(name.fileName()), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                Files.writeString(dir.resolve("failed-" + name.fileName()), String.valueOf(e.getMessage()), StandardCharsets.UTF_8);
                throw e;
            } finally {
                Files.deleteIfExists(tmp);
            }
        }

        @Override
        public StoredData openData(RemoteName name) throws IOException {
            byte[] data;
            try {
                data = Files.readAllBytes(dir.resolve(name.fileName()));
            } catch (NoSuchFileException e) {
                throw new PluginException("no object " + name);
            }
            return new StoredData() {
                @Override
                public long length() {
                    return data.length;
                }

                @Override
                public void writeTo(OutputStream out) throws IOException {
                    out.write(data);
                }

                @Override
                public void writeRanges(ByteRanges ranges, OutputStream out) {
                    throw new UnsupportedOperationException();
                }
            };
        }

        @Override
        public void deleteBackup(BackupTimestamp timestamp) {
        }

        @Override
        public void listDirectory(Optional<RemoteDirectory> directory, PrintStream out) {
        }

        @Override
        public void deleteDirectory(RemoteDirectory directory) {
        }
    }
}
