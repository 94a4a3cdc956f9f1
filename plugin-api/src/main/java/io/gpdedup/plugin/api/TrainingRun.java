package io.gpdedup.plugin.api;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Random;

/**
 * Runs every command once in-process, so the build can record which classes a plugin call loads
 * (class-data sharing / AOT cache) and later calls start with them already parsed and linked. A
 * backup and a restore of some megabytes of table rows also give a JDK 25 AOT cache the method
 * profiles of a real backup (chunks that compress, full batches), so the first backup of a new
 * process compiles from them instead of collecting its own.
 * Usage: {@code TrainingRun <PluginDefinition class> <config file> <scratch directory>}.
 */
public final class TrainingRun {
    private TrainingRun() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: TrainingRun <plugin definition class> <config> <scratch dir>");
            System.exit(2);
        }
        PluginDefinition plugin = (PluginDefinition) Class.forName(args[0]).getDeclaredConstructor().newInstance();
        String cfg = args[1];
        Path scratch = Paths.get(args[2]);
        String ts = "20000101000000";
        Path dir = scratch.resolve("backups/20000101/" + ts);
        Files.createDirectories(dir);
        String key = dir.resolve("gpbackup_0_" + ts + "_1").toString();
        Path file = dir.resolve("gpbackup_" + ts + "_toc.yaml");
        Files.writeString(file, "training\n");
        Path offsets = scratch.resolve("offsets");
        Files.writeString(offsets, "2 0 10 100 1000");
        byte[] data = new byte[1 << 20];
        new Random(1).nextBytes(data);

        CommandDispatcher d = new CommandDispatcher(plugin);
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(errors, true, StandardCharsets.UTF_8);
        int failures = 0;
        failures += call(d, err, null, "plugin_api_version");
        failures += call(d, err, null, "--version");
        for (String hook : new String[] {"setup_plugin_for_backup", "setup_plugin_for_restore", "cleanup_plugin_for_backup", "cleanup_plugin_for_restore"}) {
            failures += call(d, err, null, hook, cfg, dir.toString(), "master", "\"-1\"");
            failures += call(d, err, null, hook, cfg, dir.toString(), "segment", "\"0\"");
        }
        failures += call(d, err, new byte[0], "backup_data", cfg, key + "0");
        failures += call(d, err, data, "backup_data", cfg, key);
        failures += call(d, err, rows(16 << 20), "backup_data", cfg, key + "1");
        failures += call(d, err, null, "restore_data", cfg, key + "1");
        failures += call(d, err, null, "restore_data", cfg, key);
        failures += call(d, err, null, "restore_data_subset", cfg, key, offsets.toString());
        failures += call(d, err, null, "backup_file", cfg, file.toString());
        failures += call(d, err, null, "restore_file", cfg, file.toString());
        failures += call(d, err, null, "list_directory", cfg);
        failures += call(d, err, null, "delete_backup", cfg, ts);
        if (failures > 0) {
            System.err.println("training run: " + failures + " command(s) failed:\n" + errors.toString(StandardCharsets.UTF_8));
            System.exit(1);
        }
        // Error paths load classes too (usage, messages).
        call(d, err, null, "restore_data", cfg, key);
        call(d, err, null, "no_such_command");
    }

    /** About {@code size} bytes of COPY-text rows: an order id, a customer, a status, a date, an amount. */
    private static byte[] rows(int size) {
        Random r = new Random(2);
        String[] status = {"open", "shipped", "returned", "cancelled"};
        StringBuilder s = new StringBuilder(size + 128);
        for (long id = 1; s.length() < size; id++) {
            s.append(id).append('\t').append("customer#").append(r.nextInt(150_000)).append('\t').append(status[r.nextInt(status.length)])
                    .append('\t').append(1992 + r.nextInt(7)).append('-').append(1 + r.nextInt(12)).append('-').append(1 + r.nextInt(28))
                    .append('\t').append(r.nextInt(1_000_000) / 100.0).append('\n');
        }
        return s.toString().getBytes(StandardCharsets.US_ASCII);
    }

    private static int call(CommandDispatcher d, PrintStream err, byte[] stdin, String... args) throws IOException {
        InputStream in = new ByteArrayInputStream(stdin == null ? new byte[0] : stdin);
        OutputStream out = OutputStream.nullOutputStream();
        return d.run(args, in, out, err) == 0 ? 0 : 1;
    }
}
