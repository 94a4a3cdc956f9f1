package io.gpdedup.bench.pg;

import io.gpdedup.pg.PgServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpdedup-bench pg server}: an embedded PostgreSQL server in the foreground until SIGINT or SIGTERM. */
@Command(name = "server", mixinStandardHelpOptions = true,
        description = {"Runs a PostgreSQL server on 127.0.0.1 from the embedded binaries (or --pg-bin) until stopped with SIGINT or SIGTERM.",
            "As root it runs the server as an unprivileged account ($GPDEDUP_PG_USER, else nobody) through setpriv.",
            "Prints 'pg server ready: <JDBC URL>' once it accepts connections."})
final class PgServerCommand extends PgSubcommand {
    @Option(names = "--dir", paramLabel = "DIR", description = "data and log directory, kept (default: a temporary one, removed at exit)")
    Path dir;

    @Option(names = "--port", description = "TCP port (default: a free one)")
    int port;

    @Option(names = "--pg-bin", paramLabel = "DIR", description = "PostgreSQL bin directory instead of the embedded binaries")
    Path pgBin;

    @Option(names = "--url-file", paramLabel = "FILE", description = "also write the JDBC URL (database postgres) to FILE")
    Path urlFile;

    @Override
    int execute() throws Exception {
        PgServer.Builder b = PgServer.builder().port(port);
        if (dir != null) {
            b.directory(dir);
        }
        if (pgBin != null) {
            b.binaries(pgBin);
        }
        PgServer server = b.start();
        String url = server.jdbcUrl("postgres");
        if (urlFile != null) {
            Path tmp = urlFile.resolveSibling(urlFile.getFileName() + ".tmp");
            Files.writeString(tmp, url + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, urlFile, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        }
        System.out.println("pg server ready: " + url);
        System.out.flush();
        // The server stops from its shutdown hook when the JVM is told to exit.
        new CountDownLatch(1).await();
        return 0;
    }
}
