package io.gpdedup.plugin.api;

import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;

/**
 * The caller closed our stdin or stdout ({@code <&-}, {@code >&-}). The launcher puts {@code /dev/null}
 * in their place (a socket or pipe must not land on descriptors 0-2), and says so, to the host agent
 * in the CALL and to an in-process JVM in system property {@value #PROPERTY}, because reading
 * {@code /dev/null} would back up an empty stream and writing it would lose a restore, both with
 * exit status 0. These streams fail instead, with one clear line, before anything is committed.
 */
public final class ClosedStdio {
    /** {@code stdin}, {@code stdout} or {@code stdin,stdout}: what the launcher found closed. */
    public static final String PROPERTY = "gpdedup.stdio.closed";

    private ClosedStdio() {
    }

    /** Whether system property {@value #PROPERTY} names {@code stream}. */
    static boolean closedAtStart(String stream) {
        String v = System.getProperty(PROPERTY, "");
        return Arrays.asList(v.split(",")).contains(stream);
    }

    /** A stdin that fails at the first read. */
    public static InputStream stdin() {
        return new InputStream() {
            @Override
            public int read() {
                throw closed("stdin", "there is no stream to read");
            }

            @Override
            public int read(byte[] b, int off, int len) {
                throw closed("stdin", "there is no stream to read");
            }
        };
    }

    /** A stdout that fails at the first byte written (a command that writes nothing succeeds). */
    public static OutputStream stdout() {
        return new OutputStream() {
            @Override
            public void write(int b) {
                throw closed("stdout", "nowhere to write the data");
            }

            @Override
            public void write(byte[] b, int off, int len) {
                if (len > 0) {
                    throw closed("stdout", "nowhere to write the data");
                }
            }
        };
    }

    private static PluginException closed(String stream, String consequence) {
        return new PluginException(stream + " is closed: " + consequence + " (the caller started the plugin with " + stream + " closed)");
    }
}
