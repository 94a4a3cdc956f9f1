package io.gpdedup.plugin.agent;

import java.io.ByteArrayOutputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * The payload of a {@link FrameType#CALL} frame: what a plugin process would have known at start-up.
 * Encoding, all integers big-endian: {@code u16 version, u32 caller pid, [u32 stdio, u64 stdin offset,]
 * str working directory, u32 argc, str * argc} where {@code str} is a u32 byte count and the bytes, and
 * the bracketed fields exist from version 2 on ({@link CallerStdio} says what they mean). argv[0] (the
 * executable) is not sent: the first argument is gpbackup's command.
 *
 * <p>Strings travel as the caller's raw bytes and are decoded with the charset a JVM started in that
 * place would use for its arguments ({@code sun.jnu.encoding}), so a path means the same file in the
 * agent as in an in-process plugin.
 */
record CallRequest(int version, long callerPid, int stdio, long stdinOffset, Path workingDirectory, List<String> args) {
    static final int VERSION = 2;
    /** The launcher of the first release: no stdio fields, everything relayed. */
    static final int VERSION_RELAYED = 1;
    private static final int MAX_ARGS = 4096;

    CallRequest {
        args = List.copyOf(args);
    }

    /** A call whose stdin and stdout are relayed through the socket. */
    CallRequest(int version, long callerPid, Path workingDirectory, List<String> args) {
        this(version, callerPid, 0, 0, workingDirectory, args);
    }

    static boolean supported(int version) {
        return version == VERSION || version == VERSION_RELAYED;
    }

    String[] argv() {
        return args.toArray(new String[0]);
    }

    /** The command for logs, e.g. {@code backup_data}; empty when none was given. */
    String command() {
        return args.isEmpty() ? "" : args.get(0);
    }

    byte[] encode() {
        Charset cs = argumentCharset();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer fixed = ByteBuffer.allocate(18).putShort((short) version).putInt((int) callerPid);
        if (version >= VERSION) {
            fixed.putInt(stdio).putLong(stdinOffset);
        }
        out.write(fixed.array(), 0, fixed.position());
        writeString(out, workingDirectory.toString().getBytes(cs));
        out.writeBytes(ByteBuffer.allocate(4).putInt(args.size()).array());
        for (String a : args) {
            writeString(out, a.getBytes(cs));
        }
        return out.toByteArray();
    }

    /**
     * Decodes a CALL payload. The version is read first and checked by the caller ({@link #supported});
     * a payload of another version is returned with no working directory and no arguments.
     */
    static CallRequest decode(byte[] payload) throws ProtocolException {
        ByteBuffer b = ByteBuffer.wrap(payload);
        try {
            int version = Short.toUnsignedInt(b.getShort());
            if (!supported(version)) {
                return new CallRequest(version, 0, null, List.of());
            }
            long pid = Integer.toUnsignedLong(b.getInt());
            int stdio = 0;
            long stdinOffset = 0;
            if (version >= VERSION) {
                stdio = b.getInt();
                stdinOffset = b.getLong();
                if (stdinOffset < 0) {
                    throw new ProtocolException("CALL stdin offset " + stdinOffset + " is negative");
                }
            }
            Charset cs = argumentCharset();
            String cwd = readString(b, cs);
            long argc = Integer.toUnsignedLong(b.getInt());
            if (argc > MAX_ARGS) {
                throw new ProtocolException("CALL with " + argc + " arguments (limit " + MAX_ARGS + ")");
            }
            List<String> args = new ArrayList<>((int) argc);
            for (int i = 0; i < argc; i++) {
                args.add(readString(b, cs));
            }
            if (b.hasRemaining()) {
                throw new ProtocolException("CALL payload has " + b.remaining() + " trailing bytes");
            }
            Path dir;
            try {
                dir = Paths.get(cwd);
            } catch (InvalidPathException e) {
                throw new ProtocolException("CALL working directory is not a valid path: " + e.getMessage());
            }
            if (!dir.isAbsolute()) {
                throw new ProtocolException("CALL working directory '" + cwd + "' is not absolute");
            }
            return new CallRequest(version, pid, stdio, stdinOffset, dir, args);
        } catch (BufferUnderflowException e) {
            throw new ProtocolException("CALL payload is truncated");
        }
    }

    private static void writeString(ByteArrayOutputStream out, byte[] s) {
        out.writeBytes(ByteBuffer.allocate(4).putInt(s.length).array());
        out.writeBytes(s);
    }

    private static String readString(ByteBuffer b, Charset cs) throws ProtocolException {
        long n = Integer.toUnsignedLong(b.getInt());
        if (n > b.remaining()) {
            throw new ProtocolException("CALL string of " + n + " bytes runs past the payload");
        }
        byte[] s = new byte[(int) n];
        b.get(s);
        for (byte x : s) {
            if (x == 0) {
                throw new ProtocolException("CALL string contains a NUL byte");
            }
        }
        return new String(s, cs);
    }

    private static Charset argumentCharset() {
        String name = System.getProperty("sun.jnu.encoding");
        try {
            return name == null ? StandardCharsets.UTF_8 : Charset.forName(name);
        } catch (RuntimeException e) {
            return StandardCharsets.UTF_8;
        }
    }
}
