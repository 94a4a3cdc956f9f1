package io.gpdedup.store.replication;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import io.gpdedup.protocol.wire.ReplicaTarget;
import io.gpdedup.protocol.wire.ReplicationJobStatus.State;
import io.gpdedup.store.container.FileSync;
import io.gpdedup.store.container.OwnerOnly;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The queue on disk: {@code <data dir>/replication.json}, readable by the store's user only (it
 * holds the remote passwords of unfinished jobs), replaced as a whole by write, fsync, rename and
 * directory fsync, so a crash leaves the old or the new queue, never a mix.
 */
final class JobFile {
    static final String NAME = "replication.json";
    private static final int FORMAT = 1;
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    /** jackson-core only: the plugins, which embed the store's client, run without jackson-databind. */
    private static final JsonFactory JSON = new JsonFactory();

    /** What the file holds: the jobs, and the id the next new job gets. */
    record Contents(long nextId, List<Job> jobs) {
    }

    private final Path file;

    JobFile(Path dataDir) {
        this.file = dataDir.resolve(NAME);
    }

    Path path() {
        return file;
    }

    /** The saved queue; empty when there is no file yet. Messages never quote the file: it holds passwords. */
    Contents load() throws IOException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return new Contents(1, List.of());
        }
        if (!Files.getPosixFilePermissions(file).equals(OWNER_ONLY)) {
            Files.setPosixFilePermissions(file, OWNER_ONLY);
        }
        try (JsonParser p = JSON.createParser(bytes)) {
            Map<String, Object> root = object(p, p.nextToken());
            if (!Long.valueOf(FORMAT).equals(root.get("format")) || !(root.get("jobs") instanceof List<?> list)) {
                throw new IOException(unreadable("not a replication queue of format " + FORMAT));
            }
            List<Job> jobs = new ArrayList<>();
            for (Object j : list) {
                if (!(j instanceof Map<?, ?> m)) {
                    throw new IllegalArgumentException("job");
                }
                jobs.add(job(m));
            }
            return new Contents(Math.max(1, number(root, "next-id")), jobs);
        } catch (JsonProcessingException e) {
            throw new IOException(unreadable("not valid JSON" + (e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr())));
        } catch (IllegalArgumentException | ClassCastException e) {
            throw new IOException(unreadable("a job lacks a field or has a bad value"));
        }
    }

    /** One JSON object of strings, whole numbers and (one level of) arrays of such objects. */
    private static Map<String, Object> object(JsonParser p, JsonToken start) throws IOException {
        if (start != JsonToken.START_OBJECT) {
            throw new IllegalArgumentException("object");
        }
        Map<String, Object> m = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken v = p.nextToken();
            if (v == JsonToken.START_ARRAY) {
                List<Object> list = new ArrayList<>();
                JsonToken t;
                while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                    list.add(object(p, t));
                }
                m.put(name, list);
            } else if (v == JsonToken.VALUE_NUMBER_INT) {
                m.put(name, p.getLongValue());
            } else if (v == JsonToken.VALUE_STRING) {
                m.put(name, p.getText());
            } else {
                throw new IllegalArgumentException(name);
            }
        }
        return m;
    }

    private String unreadable(String why) {
        return "replication queue " + file + " is unreadable (" + why + "): move it away to start without its jobs";
    }

    void save(long nextId, Collection<Job> jobs) throws IOException {
        ByteArrayOutputStream json = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(json).useDefaultPrettyPrinter()) {
            g.writeStartObject();
            g.writeNumberField("format", FORMAT);
            g.writeNumberField("next-id", nextId);
            g.writeArrayFieldStart("jobs");
            for (Job j : jobs) {
                g.writeStartObject();
                g.writeNumberField("id", j.id);
                g.writeStringField("unit", j.unit);
                g.writeStringField("source", j.source);
                g.writeStringField("remote-host", j.target.host());
                g.writeNumberField("remote-port", j.target.port());
                g.writeStringField("remote-unit", j.target.unit());
                g.writeStringField("remote-user", j.target.user());
                g.writeStringField("remote-password", j.password);
                g.writeStringField("target-prefix", j.target.prefix());
                g.writeStringField("state", j.state.name().toLowerCase(Locale.ROOT));
                g.writeNumberField("attempts", j.attempts);
                g.writeNumberField("objects-copied", j.objectsCopied);
                g.writeNumberField("chunks-sent", j.chunksSent);
                g.writeNumberField("bytes-sent", j.bytesSent);
                g.writeNumberField("enqueued-at", j.enqueuedAtMillis);
                g.writeNumberField("updated-at", j.updatedAtMillis);
                g.writeNumberField("next-attempt-at", j.nextAttemptAtMillis);
                g.writeStringField("last-error", j.lastError);
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        byte[] bytes = json.toByteArray();
        Path tmp = file.resolveSibling(NAME + ".tmp");
        Files.deleteIfExists(tmp);
        // Created with its final mode: the passwords are never readable by others, not even for a moment.
        try (FileChannel ch = OwnerOnly.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        FileSync.syncDirectory(file.getParent());
    }

    private static Job job(Map<?, ?> n) {
        ReplicaTarget target = new ReplicaTarget(text(n, "remote-host"), Math.toIntExact(number(n, "remote-port")), text(n, "remote-unit"),
                text(n, "remote-user"), text(n, "target-prefix"));
        Job j = new Job(number(n, "id"), text(n, "unit"), text(n, "source"), target, text(n, "remote-password"), number(n, "enqueued-at"));
        j.state = State.valueOf(text(n, "state").toUpperCase(Locale.ROOT));
        j.attempts = Math.toIntExact(number(n, "attempts"));
        j.objectsCopied = number(n, "objects-copied");
        j.chunksSent = number(n, "chunks-sent");
        j.bytesSent = number(n, "bytes-sent");
        j.updatedAtMillis = number(n, "updated-at");
        j.nextAttemptAtMillis = number(n, "next-attempt-at");
        j.lastError = text(n, "last-error");
        return j;
    }

    private static String text(Map<?, ?> n, String field) {
        if (!(n.get(field) instanceof String s)) {
            throw new IllegalArgumentException(field);
        }
        return s;
    }

    private static long number(Map<?, ?> n, String field) {
        if (!(n.get(field) instanceof Long l)) {
            throw new IllegalArgumentException(field);
        }
        return l;
    }
}
