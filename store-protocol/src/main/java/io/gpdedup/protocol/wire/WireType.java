package io.gpdedup.protocol.wire;

import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * How values of one kind go on the wire (docs/protocol.md sections 1 and 4): their size, their
 * bytes, and back with every bound checked. A message's body is one, most of them made of their
 * fields by {@link Fields#of}; the few irregular ones are written by hand with {@link #of}. It is
 * the field that is the whole value.
 */
interface WireType<T> extends Field<T, T> {
    static <T> WireType<T> of(ToLongFunction<T> size, BiConsumer<WireWriter, T> write, Function<WireReader, T> read) {
        return new Fields.TypeOf<>(size, write, read);
    }

    /** No bytes at all: a message with no body. */
    static <T> WireType<T> empty(Supplier<T> make) {
        return of(value -> 0, (out, value) -> { }, in -> make.get());
    }
}
