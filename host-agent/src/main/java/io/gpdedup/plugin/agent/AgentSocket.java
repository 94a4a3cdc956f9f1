package io.gpdedup.plugin.agent;

import java.io.Closeable;
import java.io.IOException;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipal;
import java.util.Optional;
import java.util.Set;

/**
 * The agent's listening socket, bound so that two agents never share a path: bind under a private
 * name, refuse if a live agent already answers on the real path, then rename over it (replacing a
 * stale file atomically). Should two agents still race, the later rename wins; the loser notices
 * through {@link #stillOurs()} that the path no longer names its socket and shuts down.
 */
final class AgentSocket implements Closeable {
    private static final Set<PosixFilePermission> OTHERS = Set.of(
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private final Path path;
    private final ServerSocketChannel server;
    private final UserPrincipal owner;
    private final Object fileKey;

    private AgentSocket(Path path, ServerSocketChannel server, UserPrincipal owner, Object fileKey) {
        this.path = path;
        this.server = server;
        this.owner = owner;
        this.fileKey = fileKey;
    }

    /**
     * Binds {@code path}; empty when a live agent already serves it.
     *
     * @throws IOException if the directory is not private to this user, or binding fails
     */
    static Optional<AgentSocket> bind(Path path) throws IOException {
        Path socket = path.toAbsolutePath();
        Path dir = socket.getParent();
        Path temp = dir.resolve(".agent-" + ProcessHandle.current().pid());
        Files.deleteIfExists(temp);
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        boolean done = false;
        try {
            server.bind(UnixDomainSocketAddress.of(temp), 128);
            // The socket file was created with this process's uid: that is who may call.
            UserPrincipal me = Files.getOwner(temp, LinkOption.NOFOLLOW_LINKS);
            requirePrivate(dir, me);
            if (answers(socket)) {
                return Optional.empty();
            }
            Files.move(temp, socket, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            Object key = Files.readAttributes(socket, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
            done = true;
            return Optional.of(new AgentSocket(socket, server, me, key));
        } finally {
            if (!done) {
                server.close();
                Files.deleteIfExists(temp);
            }
        }
    }

    /** The directory must be a real directory of this user that nobody else can enter. */
    static void requirePrivate(Path dir, UserPrincipal me) throws IOException {
        PosixFileAttributes a = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!a.isDirectory()) {
            throw new IOException(dir + " is not a directory");
        }
        if (!a.owner().equals(me)) {
            throw new IOException("socket directory " + dir + " is owned by " + a.owner().getName() + ", not " + me.getName());
        }
        Set<PosixFilePermission> open = new java.util.HashSet<>(a.permissions());
        open.retainAll(OTHERS);
        if (!open.isEmpty()) {
            throw new IOException("socket directory " + dir + " is accessible by other users (" + open + "); expected mode 0700");
        }
    }

    /** Whether something accepts connections on {@code socket}. */
    static boolean answers(Path socket) throws IOException {
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.connect(UnixDomainSocketAddress.of(socket));
            return true;
        } catch (ConnectException | NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
                return false;
            }
            throw e;
        }
    }

    Path path() {
        return path;
    }

    /** The user this agent serves (the socket file's owner). */
    UserPrincipal owner() {
        return owner;
    }

    SocketChannel accept() throws IOException {
        return server.accept();
    }

    /** Whether the path still names this agent's socket (not removed, not replaced by another agent). */
    boolean stillOurs() {
        try {
            return fileKey.equals(Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey());
        } catch (IOException e) {
            return false;
        }
    }

    /** Stops listening and removes the path if it is still ours, so the next launcher starts a new agent. */
    @Override
    public void close() throws IOException {
        try {
            if (stillOurs()) {
                Files.deleteIfExists(path);
            }
        } finally {
            server.close();
        }
    }
}
