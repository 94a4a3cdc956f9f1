package io.gpdedup.pg;

import java.io.IOException;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The PostgreSQL server the tests of this package share: the embedded binaries through
 * {@link PgServer} by default; a Testcontainers {@code postgres:14} container instead when
 * {@code -Dgpdedup.pg.testcontainers=true} is set and a Docker engine answers. One server per test
 * JVM, stopped by its shutdown hook; every test works in a database of its own.
 */
final class TestPostgres {
    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static TestPostgres shared;

    private final String baseUrl;

    private TestPostgres(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    static synchronized TestPostgres shared() throws IOException {
        if (shared == null) {
            shared = new TestPostgres(Boolean.getBoolean("gpdedup.pg.testcontainers") && Containers.dockerAvailable()
                    ? Containers.start() : PgServer.builder().start().jdbcUrl("postgres"));
        }
        return shared;
    }

    /** A new, empty database; returns its JDBC URL. */
    String newDatabase(String prefix) throws SQLException {
        String name = prefix + "_" + DATABASES.incrementAndGet();
        Jdbc.createDatabase(baseUrl, name);
        return Jdbc.withDatabase(baseUrl, name);
    }

    /** Kept apart so that Testcontainers classes load only when asked for. */
    private static final class Containers {
        static boolean dockerAvailable() {
            try {
                return org.testcontainers.DockerClientFactory.instance().isDockerAvailable();
            } catch (RuntimeException | LinkageError e) {
                return false;
            }
        }

        @SuppressWarnings("resource") // stopped by Testcontainers' reaper when the JVM exits
        static String start() {
            var c = new org.testcontainers.postgresql.PostgreSQLContainer("postgres:14");
            c.start();
            return "jdbc:postgresql://" + c.getHost() + ":" + c.getMappedPort(5432) + "/postgres?user=" + c.getUsername()
                    + "&password=" + c.getPassword();
        }
    }
}
