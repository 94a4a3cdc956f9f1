package io.gpdedup.pg;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

/** Connections, identifier quoting and the COPY API, in one place so every class speaks the same dialect. */
public final class Jdbc {
    /** The COPY options gpbackup uses for table data (CSV, comma): restore must use the same ones. */
    static final String COPY_OPTIONS = "WITH (FORMAT csv, DELIMITER ',')";
    /** SQLSTATE lock_not_available, what {@code LOCK ... NOWAIT} raises when it would have to wait. */
    static final String LOCK_NOT_AVAILABLE = "55P03";

    private static final Pattern URL = Pattern.compile("^(jdbc:postgresql://[^/?]*/)([^?]*)(.*)$");

    private Jdbc() {
    }

    public static Connection open(String url) throws SQLException {
        if (url == null || !url.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("not a PostgreSQL JDBC URL: " + url + " (expected jdbc:postgresql://host:port/database?user=...)");
        }
        Properties p = new Properties();
        p.setProperty("ApplicationName", "gpdedup-bench");
        return DriverManager.getConnection(url, p);
    }

    /** The same URL naming another database on the same server. */
    static String withDatabase(String url, String database) {
        Matcher m = URL.matcher(url);
        if (!m.matches()) {
            throw new IllegalArgumentException("cannot find the database name in " + url + " (expected jdbc:postgresql://host:port/database)");
        }
        return m.group(1) + database + m.group(3);
    }

    /** The database a URL names. */
    public static String database(String url) {
        Matcher m = URL.matcher(url);
        if (!m.matches() || m.group(2).isEmpty()) {
            throw new IllegalArgumentException("cannot find the database name in " + url + " (expected jdbc:postgresql://host:port/database)");
        }
        return m.group(2);
    }

    public static String quote(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }

    public static String literal(String value) {
        return "'" + value.replace("'", "''") + "'";
    }

    public static CopyManager copy(Connection c) throws SQLException {
        return c.unwrap(PGConnection.class).getCopyAPI();
    }

    public static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    static String queryString(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            if (!r.next()) {
                throw new SQLException("no row from " + sql);
            }
            return r.getString(1);
        }
    }

    static long queryLong(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            if (!r.next()) {
                throw new SQLException("no row from " + sql);
            }
            return r.getLong(1);
        }
    }

    /** Creates {@code database} on the server {@code url} points at, through its {@code postgres} database. */
    public static void createDatabase(String url, String database) throws SQLException {
        try (Connection c = open(withDatabase(url, "postgres"))) {
            execute(c, "CREATE DATABASE " + quote(database));
        }
    }
}
