package io.gpdedup.protocol.wire;

import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * A record's body described once, as its fields in wire order: {@code of(Abort::new, u64("lease",
 * Abort::lease))} is how ABORT is written, sized and read. Each field's {@code what} names it in
 * the errors of a malformed frame. Numbers are taken from the record unboxed; a field read back is
 * boxed only on its way to the record's constructor, once per record, never per list entry.
 */
final class Fields {
    /** The one flag bit of the flags bytes that versions 6 and 7 added at the ends of bodies. */
    private static final int FLAG = 1;

    private Fields() {
    }

    /** Makes a record of three fields. */
    @FunctionalInterface
    interface Make3<A, B, C, R> {
        R make(A a, B b, C c);
    }

    /** Makes a record of four fields. */
    @FunctionalInterface
    interface Make4<A, B, C, D, R> {
        R make(A a, B b, C c, D d);
    }

    /** Makes a record of five fields. */
    @FunctionalInterface
    interface Make5<A, B, C, D, E, R> {
        R make(A a, B b, C c, D d, E e);
    }

    /** Makes a record of six fields. */
    @FunctionalInterface
    interface Make6<A, B, C, D, E, F, R> {
        R make(A a, B b, C c, D d, E e, F f);
    }

    // The fields are read in the order of the constructor's arguments, which Java evaluates left to right.

    static <R, A> WireType<R> of(Function<A, R> make, Field<R, A> a) {
        return body(in -> make.apply(a.read(in)), a);
    }

    static <R, A, B> WireType<R> of(BiFunction<A, B, R> make, Field<R, A> a, Field<R, B> b) {
        return body(in -> make.apply(a.read(in), b.read(in)), a, b);
    }

    static <R, A, B, C> WireType<R> of(Make3<A, B, C, R> make, Field<R, A> a, Field<R, B> b, Field<R, C> c) {
        return body(in -> make.make(a.read(in), b.read(in), c.read(in)), a, b, c);
    }

    static <R, A, B, C, D> WireType<R> of(Make4<A, B, C, D, R> make, Field<R, A> a, Field<R, B> b, Field<R, C> c, Field<R, D> d) {
        return body(in -> make.make(a.read(in), b.read(in), c.read(in), d.read(in)), a, b, c, d);
    }

    static <R, A, B, C, D, E> WireType<R> of(Make5<A, B, C, D, E, R> make, Field<R, A> a, Field<R, B> b, Field<R, C> c,
            Field<R, D> d, Field<R, E> e) {
        return body(in -> make.make(a.read(in), b.read(in), c.read(in), d.read(in), e.read(in)), a, b, c, d, e);
    }

    static <R, A, B, C, D, E, F> WireType<R> of(Make6<A, B, C, D, E, F, R> make, Field<R, A> a, Field<R, B> b, Field<R, C> c,
            Field<R, D> d, Field<R, E> e, Field<R, F> f) {
        return body(in -> make.make(a.read(in), b.read(in), c.read(in), d.read(in), e.read(in), f.read(in)), a, b, c, d, e, f);
    }

    @SafeVarargs
    private static <R> WireType<R> body(Function<WireReader, R> read, Field<R, ?>... fields) {
        return WireType.of(r -> {
            long n = 0;
            for (Field<R, ?> f : fields) {
                n += f.size(r);
            }
            return n;
        }, (out, r) -> {
            for (Field<R, ?> f : fields) {
                f.write(out, r);
            }
        }, read);
    }

    /** A field of a type of its own: a nested record, an enum's code. */
    static <R, T> Field<R, T> field(Function<R, T> get, WireType<T> type) {
        return new Of<>(r -> type.size(get.apply(r)), (out, r) -> type.write(out, get.apply(r)), type::read);
    }

    static <R> Field<R, Integer> u16(String what, ToIntFunction<R> get) {
        return new Of<>(r -> 2, (out, r) -> out.u16(get.applyAsInt(r)), in -> in.u16(what));
    }

    /** A u32 that the protocol limits to 2^31-1. */
    static <R> Field<R, Integer> u31(String what, ToIntFunction<R> get) {
        return new Of<>(r -> 4, (out, r) -> out.u32(get.applyAsInt(r)), in -> in.u31(what));
    }

    /** A u32 of the whole range, as a long. */
    static <R> Field<R, Long> u32(String what, ToLongFunction<R> get) {
        return new Of<>(r -> 4, (out, r) -> out.u32((int) get.applyAsLong(r)), in -> in.u32Raw(what) & 0xffffffffL);
    }

    static <R> Field<R, Long> u64(String what, ToLongFunction<R> get) {
        return new Of<>(r -> 8, (out, r) -> out.u64(get.applyAsLong(r)), in -> in.u64(what));
    }

    static <R> Field<R, String> str(String what, Function<R, String> get) {
        return new Of<>(r -> WireWriter.strSize(get.apply(r)), (out, r) -> out.str(get.apply(r)), in -> in.str(what));
    }

    /** {@code u32} n; n × {@code str}. */
    static <R> Field<R, List<String>> strings(String what, Function<R, List<String>> get) {
        return new Of<>(r -> WireWriter.stringsSize(get.apply(r)), (out, r) -> out.strings(get.apply(r)), in -> in.strings(what));
    }

    /** {@code u32} n; n × {@code fp}. */
    static <R> Field<R, List<Fingerprint>> fingerprintList(Function<R, List<Fingerprint>> get) {
        return new Of<>(r -> WireWriter.fingerprintsSize(get.apply(r)), (out, r) -> out.fingerprints(get.apply(r)), WireReader::fingerprints);
    }

    /** {@code u32} n; n × {@code ref}. */
    static <R> Field<R, List<ChunkRef>> refList(Function<R, List<ChunkRef>> get) {
        return new Of<>(r -> WireWriter.refsSize(get.apply(r)), (out, r) -> out.refs(get.apply(r)), WireReader::refs);
    }

    /** {@code u32} n; n entries, each at least {@code minEntrySize} bytes (a forged count allocates nothing). */
    static <R, E> Field<R, List<E>> list(String what, int minEntrySize, Function<R, List<E>> get, WireType<E> entry) {
        return new Of<>(r -> {
            long n = 4;
            for (E e : get.apply(r)) {
                n += entry.size(e);
            }
            return n;
        }, (out, r) -> {
            List<E> entries = get.apply(r);
            out.u32(entries.size());
            for (E e : entries) {
                entry.write(out, e);
            }
        }, in -> {
            int n = in.count(minEntrySize, what);
            List<E> entries = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                entries.add(entry.read(in));
            }
            return entries;
        });
    }

    /** A stream SHA-256: {@code fp}, zero bytes for none ({@code null}; {@link Recipe#streamSha256Field}). */
    static <R> Field<R, byte[]> streamSha256OrZeros(Function<R, byte[]> get) {
        return new Of<>(r -> Fingerprint.LENGTH, (out, r) -> out.bytes(Recipe.streamSha256Field(get.apply(r))),
                in -> Recipe.streamSha256OfField(in.bytes(Fingerprint.LENGTH, "stream SHA-256")));
    }

    /** A SHA-256 added at the end of a body in a later version: present, or absent for {@code null}. */
    static <R> Field<R, byte[]> optionalSha256(String what, Function<R, byte[]> get) {
        return new Of<>(r -> WireWriter.optionalSha256Size(get.apply(r)), (out, r) -> out.optionalSha256(get.apply(r)),
                in -> in.optionalSha256(what));
    }

    /**
     * A flags byte added at the end of a body in a later version, whose one bit is the field: sent
     * only when set, so a zero byte is as malformed as an unknown bit.
     */
    static <R> Field<R, Boolean> flag(String what, Predicate<R> get) {
        return new Of<>(r -> get.test(r) ? 1 : 0, (out, r) -> {
            if (get.test(r)) {
                out.u8(FLAG);
            }
        }, in -> {
            if (in.remaining() == 0) {
                return false;
            }
            int flags = in.u8(what);
            if (flags != FLAG) {
                throw WireReader.malformed("unknown " + what + " " + flags);
            }
            return true;
        });
    }

    /** A field made of its three functions. */
    private static class Of<R, T> implements Field<R, T> {
        private final ToLongFunction<R> size;
        private final BiConsumer<WireWriter, R> write;
        private final Function<WireReader, T> read;

        Of(ToLongFunction<R> size, BiConsumer<WireWriter, R> write, Function<WireReader, T> read) {
            this.size = size;
            this.write = write;
            this.read = read;
        }

        @Override
        public long size(R record) {
            return size.applyAsLong(record);
        }

        @Override
        public void write(WireWriter out, R record) {
            write.accept(out, record);
        }

        @Override
        public T read(WireReader in) {
            return read.apply(in);
        }
    }

    /** A wire type made of its three functions ({@link WireType#of}). */
    static final class TypeOf<T> extends Of<T, T> implements WireType<T> {
        TypeOf(ToLongFunction<T> size, BiConsumer<WireWriter, T> write, Function<WireReader, T> read) {
            super(size, write, read);
        }
    }
}
