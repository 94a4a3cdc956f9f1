package io.gpdedup.store.recipe;

import io.gpdedup.protocol.model.Fingerprint;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * Object names and the recipe file each maps to. Names are slash-separated paths inside a unit;
 * the file name is the percent-encoded name, so the recipes directory stays flat (one directory
 * fsync per group commit) and an administrator can still read it.
 */
public final class ObjectName {
    public static final int MAX_BYTES = 1024;
    public static final String SUFFIX = ".rcp";
    private static final int MAX_ENCODED = 200;
    private static final HexFormat HEX_UPPER = HexFormat.of().withUpperCase();

    private ObjectName() {
    }

    /** Returns {@code name} if it is a valid object name, else throws IllegalArgumentException saying why. */
    public static String validate(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("object name is empty");
        }
        if (!StandardCharsets.UTF_8.newEncoder().canEncode(name)) {
            throw new IllegalArgumentException("object name is not valid Unicode");
        }
        if (name.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
            throw new IllegalArgumentException("object name is longer than " + MAX_BYTES + " bytes");
        }
        if (name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("object name contains NUL");
        }
        for (String part : name.split("/", -1)) {
            if (part.isEmpty()) {
                throw new IllegalArgumentException("object name '" + name + "' has an empty path component");
            }
            if (part.equals(".") || part.equals("..")) {
                throw new IllegalArgumentException("object name '" + name + "' has a '" + part + "' component");
            }
        }
        return name;
    }

    /** The recipe file name for a valid object name. */
    public static String fileName(String name) {
        byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        StringBuilder sb = new StringBuilder(utf8.length + 16);
        for (byte b : utf8) {
            int c = b & 0xff;
            if (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
                sb.append((char) c);
            } else {
                sb.append('%').append(HEX_UPPER.toHexDigits((byte) c));
            }
        }
        if (sb.length() > MAX_ENCODED) {
            return "~" + Fingerprint.compute(utf8, 0, utf8.length) + SUFFIX;
        }
        return sb.append(SUFFIX).toString();
    }

    /** The object name a recipe file name encodes, or null for hashed or foreign names. */
    static String nameOf(String fileName) {
        if (!fileName.endsWith(SUFFIX) || fileName.startsWith("~")) {
            return null;
        }
        String enc = fileName.substring(0, fileName.length() - SUFFIX.length());
        ByteArrayOutputStream out = new ByteArrayOutputStream(enc.length());
        for (int i = 0; i < enc.length(); i++) {
            char c = enc.charAt(i);
            if (c == '%' && i + 2 < enc.length()) {
                try {
                    out.write(HexFormat.fromHexDigits(enc, i + 1, i + 3));
                } catch (IllegalArgumentException e) {
                    return null;
                }
                i += 2;
            } else if (c < 0x80 && c != '%') {
                out.write(c);
            } else {
                return null;
            }
        }
        String name = out.toString(StandardCharsets.UTF_8);
        return fileName(name).equals(fileName) ? name : null;
    }
}
