package io.gpdedup.plugin.api;

import io.gpdedup.protocol.naming.RemoteName;

/**
 * A directory inside the store for the 0.5.0 utility commands list_directory and delete_directory:
 * relative, slash-separated, without {@code .} or {@code ..} components. A leading slash is dropped
 * (the store has no host paths), so {@code /backups/20261123} and {@code backups/20261123} are the same.
 */
public record RemoteDirectory(String path) {
    public RemoteDirectory {
        RemoteName.requirePrintable("invalid directory:", path);
    }

    public static RemoteDirectory parse(String raw) {
        RemoteName.requirePrintable("invalid directory:", raw);
        String s = raw;
        while (s.startsWith("/")) {
            s = s.substring(1);
        }
        while (s.endsWith("/")) {
            s = s.substring(0, s.length() - 1);
        }
        if (s.isEmpty()) {
            throw new PluginException("invalid directory '" + raw + "': must name a directory inside the store");
        }
        for (String part : s.split("/", -1)) {
            if (part.isEmpty() || part.equals(".") || part.equals("..")) {
                throw new PluginException("invalid directory '" + raw + "': empty, '.' or '..' components are not allowed");
            }
        }
        return new RemoteDirectory(s);
    }

    /** Whether a stored object name lies inside this directory. */
    public boolean contains(String objectName) {
        return objectName.startsWith(path + "/");
    }

    @Override
    public String toString() {
        return path;
    }
}
