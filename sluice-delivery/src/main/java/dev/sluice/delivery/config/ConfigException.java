package dev.sluice.delivery.config;

import dev.sluice.delivery.DeliveryException;
import java.nio.file.Path;

/**
 * A configuration file that cannot be used, naming the file, line, column and field:
 * {@code sluice-delivery.yaml:12:17: destinations.merchant-a.rate.per-second: must be > 0 (got -1)}.
 */
public final class ConfigException extends DeliveryException {

    private final Path file;
    private final int line;
    private final int column;
    private final String field;

    public ConfigException(Path file, int line, int column, String field, String problem) {
        super(file + ":" + line + ":" + column + ": " + (field.isEmpty() ? "" : field + ": ") + problem);
        this.file = file;
        this.line = line;
        this.column = column;
        this.field = field;
    }

    public Path file() {
        return file;
    }

    /** 1-based line. */
    public int line() {
        return line;
    }

    /** 1-based column. */
    public int column() {
        return column;
    }

    /** The dotted field path, e.g. {@code destinations.merchant-a.url}; empty for the document. */
    public String field() {
        return field;
    }
}
