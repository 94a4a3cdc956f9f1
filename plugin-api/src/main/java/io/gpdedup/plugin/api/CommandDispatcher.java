package io.gpdedup.plugin.api;

import io.gpdedup.protocol.naming.BackupTimestamp;
import io.gpdedup.protocol.naming.NameException;
import io.gpdedup.protocol.naming.RemoteName;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Runs one plugin command as gpbackup issues it: {@code <exe> <command> [args...]}. All argument
 * checking happens before the backend is opened and before a byte reaches stdout; the result is an
 * exit status (0, 1 for failures, 2 for usage errors), never {@code System.exit}, so the same code
 * serves a plugin process and a long-running host agent.
 */
public final class CommandDispatcher {
    static final String API_VERSION = "0.5.0";

    private final PluginDefinition plugin;

    public CommandDispatcher(PluginDefinition plugin) {
        this.plugin = plugin;
    }

    /**
     * @param out stdout: receives only data and version strings; flushed before returning
     * @param err stderr: silent on success
     */
    public int run(String[] args, InputStream in, OutputStream out, PrintStream err) {
        return run(args, null, PluginConfig::load, in, out, err);
    }

    /**
     * Runs a call on behalf of another process (the host agent serves many callers from one JVM):
     * relative path arguments resolve against the caller's {@code workingDirectory} rather than this
     * JVM's, and configs come from {@code configs}, which may cache them.
     *
     * @param workingDirectory absolute; {@code null} leaves relative paths relative to this JVM
     */
    public int run(String[] args, Path workingDirectory, Function<Path, PluginConfig> configs,
            InputStream in, OutputStream out, PrintStream err) {
        PluginLog log = null;
        String command = args.length == 0 ? "" : args[0];
        try {
            if (args.length == 0) {
                throw new UsageException("no command given");
            }
            switch (command) {
                case "plugin_api_version":
                    expectArgs(args, 0, 0);
                    print(out, API_VERSION);
                    return 0;
                case "--version":
                    expectArgs(args, 0, 0);
                    print(out, plugin.name() + " version " + plugin.version());
                    return 0;
                case "--help":
                case "-h":
                    expectArgs(args, 0, 0);
                    out.write(help().getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    return 0;
                default:
                    break;
            }
            Shape shape = Shape.of(command, plugin);
            expectArgs(args, shape.min, shape.max);
            PluginConfig config = configs.apply(path(workingDirectory, args[1]));
            PluginOptions options = PluginOptions.validate(config, plugin.name(), plugin.options());
            log = PluginLog.forOptions(plugin.name(), options);
            long started = System.nanoTime();
            String result = execute(command, Arrays.asList(args).subList(2, args.length), workingDirectory, options, log, in, out);
            out.flush();
            log.info(command + " " + String.join(" ", Arrays.asList(args).subList(2, args.length)) + ": " + result
                    + " in " + (System.nanoTime() - started) / 1_000_000 + " ms");
            return 0;
        } catch (UsageException e) {
            err.println(plugin.name() + ": " + e.getMessage());
            err.print(usage());
            err.flush();
            return 2;
        } catch (PluginException | NameException e) {
            return failed(err, log, command, e.getMessage(), in);
        } catch (UncheckedIOException e) {
            return failed(err, log, command, describe(e.getCause()), in);
        } catch (IOException | RuntimeException e) {
            return failed(err, log, command, describe(e), in);
        } catch (OutOfMemoryError e) {
            return failed(err, log, command, outOfMemory(), in);
        } finally {
            if (log != null) {
                log.close();
            }
        }
    }

    private String execute(String command, List<String> a, Path cwd, PluginOptions options, PluginLog log, InputStream in,
            OutputStream out) throws IOException {
        ExtraCommand extra = plugin.extraCommands().get(command);
        if (extra != null) {
            PrintStream ps = new PrintStream(out, false, "UTF-8");
            extra.run(options, log, a, cwd, in, ps);
            ps.flush();
            return "done";
        }
        // Parse every argument before touching the store, so bad input writes nothing anywhere.
        switch (command) {
            case "setup_plugin_for_backup":
            case "setup_plugin_for_restore":
            case "cleanup_plugin_for_backup":
            case "cleanup_plugin_for_restore": {
                Hook hook = new Hook(hookKind(command), path(cwd, a.get(0)), HookScope.parse(a.get(1)),
                        a.size() > 2 ? Hook.parseContentId(a.get(2)) : java.util.OptionalInt.empty());
                try (StorageBackend backend = plugin.open(options, log)) {
                    backend.hook(hook);
                }
                return "ok";
            }
            case "backup_file": {
                RemoteName name = RemoteName.fromLocalPath(a.get(0));
                Path local = path(cwd, a.get(0));
                if (!Files.isRegularFile(local)) {
                    throw new PluginException("backup_file: " + local + " is not a readable file");
                }
                try (StorageBackend backend = plugin.open(options, log); InputStream fileIn = Files.newInputStream(local)) {
                    backend.backupData(name, fileIn);
                }
                return "stored " + Files.size(local) + " bytes";
            }
            case "restore_file": {
                RemoteName name = RemoteName.fromLocalPath(a.get(0));
                Path local = path(cwd, a.get(0));
                try (StorageBackend backend = plugin.open(options, log); StoredData data = backend.openData(name)) {
                    return "restored " + writeLocalFile(data, local) + " bytes";
                }
            }
            case "backup_data": {
                RemoteName name = RemoteName.fromLocalPath(a.get(0));
                try (StorageBackend backend = plugin.open(options, log)) {
                    backend.backupData(name, in);
                }
                return "stored";
            }
            case "restore_data": {
                RemoteName name = RemoteName.fromLocalPath(a.get(0));
                try (StorageBackend backend = plugin.open(options, log); StoredData data = backend.openData(name)) {
                    data.writeTo(out);
                    return "wrote " + data.length() + " bytes";
                }
            }
            case "restore_data_subset": {
                RemoteName name = RemoteName.fromLocalPath(a.get(0));
                ByteRanges ranges = ByteRanges.read(path(cwd, a.get(1)));
                try (StorageBackend backend = plugin.open(options, log); StoredData data = backend.openData(name)) {
                    ranges.requireWithin(data.length());
                    data.writeRanges(ranges, out);
                    return "wrote " + ranges.totalBytes() + " bytes in " + ranges.count() + " ranges";
                }
            }
            case "delete_backup": {
                BackupTimestamp ts = BackupTimestamp.parse(a.get(0));
                try (StorageBackend backend = plugin.open(options, log)) {
                    backend.deleteBackup(ts);
                }
                return "deleted";
            }
            case "list_directory": {
                Optional<RemoteDirectory> dir = a.isEmpty() ? Optional.empty() : Optional.of(RemoteDirectory.parse(a.get(0)));
                PrintStream ps = new PrintStream(out, false, "UTF-8");
                try (StorageBackend backend = plugin.open(options, log)) {
                    backend.listDirectory(dir, ps);
                }
                ps.flush();
                return "listed";
            }
            case "delete_directory": {
                RemoteDirectory dir = RemoteDirectory.parse(a.get(0));
                try (StorageBackend backend = plugin.open(options, log)) {
                    backend.deleteDirectory(dir);
                }
                return "deleted";
            }
            default:
                throw new UsageException("unknown command '" + command + "'");
        }
    }

    /** Writes next to the target and renames, so a failed restore never leaves a partial file behind. */
    private static long writeLocalFile(StoredData data, Path local) throws IOException {
        Path tmp = SiblingFile.createFor(local, "restoring");
        try {
            try (OutputStream fileOut = Files.newOutputStream(tmp)) {
                data.writeTo(fileOut);
            }
            Files.move(tmp, local, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return data.length();
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static Path path(Path cwd, String arg) {
        return ExtraCommand.path(cwd, arg);
    }

    /** Reports a failure; a failed backup_data then drains its stdin (see {@link UnreadStdin}). */
    private int failed(PrintStream err, PluginLog log, String command, String message, InputStream in) {
        int status = fail(err, log, command, message);
        if (command.equals("backup_data")) {
            UnreadStdin.drain(in);
        }
        return status;
    }

    private int fail(PrintStream err, PluginLog log, String command, String message) {
        if (log != null) {
            log.error(command + ": " + message);
        }
        err.println(plugin.name() + ": " + command + ": " + message);
        err.flush();
        return 1;
    }

    private String describe(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            // The workers' failures reach here wrapped.
            if (t instanceof OutOfMemoryError) {
                return outOfMemory();
            }
        }
        String m = e.getMessage();
        return m == null ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": " + m;
    }

    private String outOfMemory() {
        return "out of memory: the JVM's max heap is too small for what this process holds (raise -Xmx in lib/" + plugin.name()
                + ".launch)";
    }

    private static Hook.Kind hookKind(String command) {
        switch (command) {
            case "setup_plugin_for_backup":
                return Hook.Kind.SETUP_FOR_BACKUP;
            case "setup_plugin_for_restore":
                return Hook.Kind.SETUP_FOR_RESTORE;
            case "cleanup_plugin_for_backup":
                return Hook.Kind.CLEANUP_FOR_BACKUP;
            default:
                return Hook.Kind.CLEANUP_FOR_RESTORE;
        }
    }

    private static void expectArgs(String[] args, int min, int max) {
        int n = args.length - 1;
        if (n < min || n > max) {
            String want = min == max ? String.valueOf(min) : min + " to " + max;
            throw new UsageException(args[0] + " takes " + want + " argument(s), got " + n);
        }
    }

    private static void print(OutputStream out, String line) throws IOException {
        out.write((line + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        out.flush();
    }

    /** The argument counts of each command (including CFG). */
    private record Shape(int min, int max) {
        static Shape of(String command, PluginDefinition plugin) {
            switch (command) {
                case "setup_plugin_for_backup":
                case "setup_plugin_for_restore":
                case "cleanup_plugin_for_backup":
                case "cleanup_plugin_for_restore":
                    return new Shape(3, 4);
                case "backup_file":
                case "restore_file":
                case "backup_data":
                case "restore_data":
                case "delete_backup":
                case "delete_directory":
                    return new Shape(2, 2);
                case "restore_data_subset":
                    return new Shape(3, 3);
                case "list_directory":
                    return new Shape(1, 2);
                default:
                    ExtraCommand extra = plugin.extraCommands().get(command);
                    if (extra == null) {
                        throw new UsageException("unknown command '" + command + "'");
                    }
                    return new Shape(1 + extra.arity(), 1 + extra.arity());
            }
        }
    }

    /** The usage, the options a plugin config may hold, and the exit codes: what {@code --help} prints. */
    String help() {
        StringBuilder sb = new StringBuilder(plugin.name()).append(" version ").append(plugin.version())
                .append(": a gpbackup/gprestore storage plugin (gpbackup --plugin-config FILE).\n").append(usage())
                .append("\nplugin config (YAML): executablepath: <absolute path of this executable>, and options:\n");
        for (OptionSpec o : plugin.options()) {
            sb.append("  ").append(o.name()).append(o.required() ? " (required)" : o.defaultValue() == null ? "" : " (default " + o.defaultValue() + ")")
                    .append(": ").append(o.help()).append('\n');
        }
        return sb.append("\nexit status: 0 done, 1 failed (one line on stderr says why), 2 wrong command or arguments\n").toString();
    }

    public String usage() {
        StringBuilder sb = new StringBuilder();
        String exe = plugin.name();
        sb.append("usage: ").append(exe).append(" <command> [arguments]\n")
                .append("  ").append(exe).append(" plugin_api_version\n")
                .append("  ").append(exe).append(" --version\n")
                .append("  ").append(exe).append(" --help\n")
                .append("  ").append(exe).append(" setup_plugin_for_backup|setup_plugin_for_restore|cleanup_plugin_for_backup|cleanup_plugin_for_restore CFG DIR master|coordinator|segment_host|segment [CONTENT_ID]\n")
                .append("  ").append(exe).append(" backup_file|restore_file CFG FILE\n")
                .append("  ").append(exe).append(" backup_data|restore_data CFG KEY\n")
                .append("  ").append(exe).append(" restore_data_subset CFG KEY OFFSETS_FILE\n")
                .append("  ").append(exe).append(" delete_backup CFG TIMESTAMP\n")
                .append("  ").append(exe).append(" list_directory CFG [DIRECTORY]\n")
                .append("  ").append(exe).append(" delete_directory CFG DIRECTORY\n");
        plugin.extraCommands().forEach((name, c) -> sb.append("  ").append(exe).append(' ').append(name).append(" CFG ").append(c.usage()).append('\n'));
        return sb.toString();
    }
}
