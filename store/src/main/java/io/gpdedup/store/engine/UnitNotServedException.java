package io.gpdedup.store.engine;

/** A storage unit this store is the standby of: another store holds it now (a login gets NOT_SERVED). */
public final class UnitNotServedException extends StoreException {
    private static final long serialVersionUID = 1L;

    UnitNotServedException(String unit, String holder) {
        super("storage unit '" + unit + "' is held by " + holder + "; this store is its standby and serves it once that store's lease lapses");
    }
}
