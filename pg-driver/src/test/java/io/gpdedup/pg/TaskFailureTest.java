package io.gpdedup.pg;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.sql.SQLException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class TaskFailureTest {
    @Test
    void declaredAndUncheckedFailuresComeBackAsThemselves() {
        IOException io = new IOException("disk");
        SQLException sql = new SQLException("relation", "42P01");
        InterruptedException interrupted = new InterruptedException("stop");
        IllegalStateException runtime = new IllegalStateException("bug");
        assertSame(io, assertThrows(IOException.class, () -> TaskFailure.rethrow(io)));
        assertSame(sql, assertThrows(SQLException.class, () -> TaskFailure.rethrow(sql)));
        assertSame(interrupted, assertThrows(InterruptedException.class, () -> TaskFailure.rethrow(interrupted)));
        assertSame(runtime, assertThrows(IllegalStateException.class, () -> TaskFailure.rethrow(runtime)));
    }

    @Test
    void anyOtherFailureIsWrappedInAnIOException() {
        TimeoutException checked = new TimeoutException("slow");
        AssertionError error = new AssertionError("broken");
        assertSame(checked, assertThrows(IOException.class, () -> TaskFailure.rethrow(checked)).getCause());
        assertSame(error, assertThrows(IOException.class, () -> TaskFailure.rethrow(error)).getCause());
    }

    @Test
    void noFailureThrowsNothing() {
        assertDoesNotThrow(() -> TaskFailure.rethrow(null));
    }
}
