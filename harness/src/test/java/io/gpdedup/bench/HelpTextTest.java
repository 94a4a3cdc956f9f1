package io.gpdedup.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The --help of every gpdedup-bench command, as picocli renders it: no picocli warning (a stray
 * '%' in a description), summaries that are whole sentences (the parent's help shows only the
 * first line), --profile always a file, and the exit codes of the live commands listed.
 */
class HelpTextTest {
    private static final Set<String> LIVE = Set.of("connchk", "isolated", "calibrate", "gpbackup-sim", "compare");

    @Test
    void everyCommandsHelpIsCleanAndComplete() {
        List<CommandLine> all = new ArrayList<>();
        collect(new CommandLine(new BenchMain()), all);
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            for (CommandLine c : all) {
                String name = c.getCommandSpec().qualifiedName();
                String usage = c.getUsageMessage(CommandLine.Help.Ansi.OFF);
                assertEquals("", captured.toString(StandardCharsets.UTF_8), name + " --help");
                String[] description = c.getCommandSpec().usageMessage().description();
                if (description.length > 0 && !name.endsWith(" help")) {
                    assertTrue(description[0].endsWith("."), name + ": the first description line is the summary and must be whole: "
                            + description[0]);
                }
                for (OptionSpec o : c.getCommandSpec().options()) {
                    if (List.of(o.names()).contains("--profile")) {
                        assertEquals("FILE", o.paramLabel(), name + " --profile must be a file");
                    }
                }
                if (LIVE.contains(c.getCommandName())) {
                    assertTrue(usage.contains("Exit status:") && usage.contains("  3 "), name + " lists its exit codes:\n" + usage);
                }
            }
        } finally {
            System.setErr(err);
        }
        assertFalse(all.isEmpty());
    }

    private static void collect(CommandLine c, List<CommandLine> into) {
        into.add(c);
        c.getSubcommands().values().forEach(s -> collect(s, into));
    }
}
