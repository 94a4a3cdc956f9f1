package io.gpdedup.bench.workload;

import io.gpdedup.pg.TableShape;
import picocli.CommandLine;

/** Reads a {@code --table} option: a table's name, or a bad-input line naming the tables there are. */
public final class TableShapeConverter implements CommandLine.ITypeConverter<TableShape> {
    @Override
    public TableShape convert(String value) {
        try {
            return TableShape.of(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
