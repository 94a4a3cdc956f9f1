package io.gpdedup.plugin.localfs;

import io.gpdedup.plugin.api.ByteRanges;
import io.gpdedup.plugin.api.CommitGate;
import io.gpdedup.plugin.api.Hook;
import io.gpdedup.plugin.api.PluginException;
import io.gpdedup.plugin.api.RemoteDirectory;
import io.gpdedup.plugin.api.SiblingFile;
import io.gpdedup.plugin.api.StorageBackend;
import io.gpdedup.plugin.api.StoredData;
import io.gpdedup.protocol.naming.BackupTimestamp;
import io.gpdedup.protocol.naming.RemoteName;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** Objects as files: {@code <root>/backups/<date>/<timestamp>/<file name>}. */
final class DirectoryBackend implements StorageBackend {
    /** In-progress writes carry this suffix and a leading dot; they are never listed or restored. */
    static final String PARTIAL_SUFFIX = "partial";
    private static final int BUFFER = 1 << 20;

    private final Path root;

    DirectoryBackend(Path root) {
        this.root = root;
    }

    @Override
    public void hook(Hook hook) throws IOException {
        if (hook.isSetup() && hook.isBackup()) {
            // Concurrent segment_host calls race here; createDirectories tolerates that.
            Files.createDirectories(root);
        } else if (!Files.isDirectory(root)) {
            throw new PluginException("directory " + root + " does not exist");
        }
    }

    @Override
    public void backupData(RemoteName name, InputStream in) throws IOException {
        Path target = fileOf(name);
        Path dir = target.getParent();
        Files.createDirectories(dir);
        Path tmp = SiblingFile.createFor(target, PARTIAL_SUFFIX);
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                byte[] buf = new byte[BUFFER];
                ByteBuffer bb = ByteBuffer.wrap(buf);
                int n;
                while ((n = in.readNBytes(buf, 0, BUFFER)) > 0) {
                    bb.clear().limit(n);
                    while (bb.hasRemaining()) {
                        ch.write(bb);
                    }
                    if (n < BUFFER) {
                        break;
                    }
                }
                ch.force(true);
            }
            CommitGate.commit(() -> {
                moveIntoPlace(tmp, target);
                syncDirectory(dir);
            }, () -> Files.deleteIfExists(target));
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static void moveIntoPlace(Path tmp, Path target) throws IOException {
        try {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new PluginException("directory " + target.getParent() + " does not support atomic renames", e);
        }
    }

    private static void syncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    @Override
    public StoredData openData(RemoteName name) throws IOException {
        Path file = fileOf(name);
        FileChannel ch;
        try {
            ch = FileChannel.open(file, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            throw new PluginException("no backup object " + name + " in " + root);
        }
        return new FileData(ch);
    }

    @Override
    public void deleteBackup(BackupTimestamp timestamp) throws IOException {
        Path dir = root.resolve(RemoteName.backupPrefix(timestamp));
        deleteTree(dir);
        // Drop the date directory too once its last backup is gone.
        try {
            Files.deleteIfExists(dir.getParent());
        } catch (DirectoryNotEmptyException e) {
            // other backups of that day remain
        }
    }

    @Override
    public void listDirectory(Optional<RemoteDirectory> directory, PrintStream out) throws IOException {
        Path start = directory.map(d -> root.resolve(d.path())).orElse(root);
        if (!Files.isDirectory(start)) {
            throw new PluginException("no directory " + directory.map(RemoteDirectory::path).orElse(root.toString()));
        }
        List<String> lines = new ArrayList<>();
        try (Stream<Path> files = Files.walk(start)) {
            files.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().startsWith(".")).forEach(p -> {
                try {
                    lines.add(root.relativize(p) + " " + Files.size(p));
                } catch (IOException e) {
                    // vanished while listing (concurrent delete): leave it out
                }
            });
        }
        lines.sort(null);
        lines.forEach(out::println);
    }

    @Override
    public void deleteDirectory(RemoteDirectory directory) throws IOException {
        Path dir = root.resolve(directory.path());
        if (!Files.isDirectory(dir)) {
            throw new PluginException("no directory " + directory + " in " + root);
        }
        deleteTree(dir);
    }

    private Path fileOf(RemoteName name) {
        return root.resolve(name.path());
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException exc) throws IOException {
                Files.deleteIfExists(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** A stored file opened for reading; ranges use positioned reads, so no seek state is shared. */
    private static final class FileData implements StoredData {
        private final FileChannel channel;
        private final long length;

        FileData(FileChannel channel) throws IOException {
            this.channel = channel;
            this.length = channel.size();
        }

        @Override
        public long length() {
            return length;
        }

        @Override
        public void writeTo(OutputStream out) throws IOException {
            copy(0, length, out);
        }

        @Override
        public void writeRanges(ByteRanges ranges, OutputStream out) throws IOException {
            for (int i = 0; i < ranges.count(); i++) {
                copy(ranges.start(i), ranges.end(i), out);
            }
        }

        private void copy(long start, long end, OutputStream out) throws IOException {
            byte[] buf = new byte[(int) Math.min(BUFFER, Math.max(1, end - start))];
            ByteBuffer bb = ByteBuffer.wrap(buf);
            long pos = start;
            while (pos < end) {
                bb.clear().limit((int) Math.min(buf.length, end - pos));
                int n = channel.read(bb, pos);
                if (n < 0) {
                    throw new IOException("object shrank while being read (at byte " + pos + " of " + length + ")");
                }
                out.write(buf, 0, n);
                pos += n;
            }
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}
