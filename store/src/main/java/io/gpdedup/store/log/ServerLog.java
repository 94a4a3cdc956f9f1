package io.gpdedup.store.log;

import io.gpdedup.store.config.LogSettings;
import io.gpdedup.store.container.OwnerOnly;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Points the server's log at its destination once the config is read: a rotating file, or
 * stderr. When stderr goes to the systemd journal ({@code $JOURNAL_STREAM} is set) each line
 * starts with the syslog priority ({@code <4>} for a warning) instead of a timestamp, as
 * sd-daemon(3) describes: the journal stamps lines itself and filters on the priority.
 */
public final class ServerLog {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private ServerLog() {
    }

    /**
     * Replaces the root logger's handlers, unless the log stays on a stderr that is not the
     * journal; a file that cannot be opened is an error for the operator.
     */
    public static void install(LogSettings settings) throws IOException {
        boolean journal = System.getenv("JOURNAL_STREAM") != null;
        if (settings.file() == null && !journal) {
            return;
        }
        Handler handler;
        if (settings.file() != null) {
            OwnerOnly.createDirectories(settings.file().toAbsolutePath().getParent());
            try {
                handler = new RotatingLogFile(settings.file(), settings.maxBytes(), settings.files());
            } catch (IOException e) {
                throw new IOException("cannot open log file " + settings.file() + ": " + e.getMessage(), e);
            }
            handler.setFormatter(new Lines(false));
        } else {
            handler = new ConsoleHandler();
            handler.setFormatter(new Lines(true));
        }
        handler.setLevel(Level.ALL);
        Logger root = LogManager.getLogManager().getLogger("");
        for (Handler h : root.getHandlers()) {
            root.removeHandler(h);
            h.close();
        }
        root.addHandler(handler);
    }

    /** One line per record (plus the stack of an unexpected failure): time or priority, level, logger, message, as on stderr. */
    static final class Lines extends Formatter {
        private final boolean journal;

        Lines(boolean journal) {
            this.journal = journal;
        }

        @Override
        public String format(LogRecord r) {
            StringBuilder b = new StringBuilder();
            if (journal) {
                b.append('<').append(priority(r.getLevel())).append('>');
            } else {
                b.append(TIME.format(ZonedDateTime.ofInstant(r.getInstant(), ZoneId.systemDefault()))).append(' ');
            }
            b.append(r.getLevel().getName()).append(' ').append(r.getLoggerName()).append(": ").append(formatMessage(r)).append('\n');
            if (r.getThrown() != null) {
                StringWriter w = new StringWriter();
                r.getThrown().printStackTrace(new PrintWriter(w));
                b.append(w);
            }
            return b.toString();
        }

        private static int priority(Level level) {
            int v = level.intValue();
            if (v >= Level.SEVERE.intValue()) {
                return 3;
            }
            if (v >= Level.WARNING.intValue()) {
                return 4;
            }
            if (v >= Level.INFO.intValue()) {
                return 6;
            }
            return 7;
        }
    }
}
