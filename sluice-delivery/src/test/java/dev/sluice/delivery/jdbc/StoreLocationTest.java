package dev.sluice.delivery.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class StoreLocationTest {

    @Test
    void theDefaultIsASqliteFileInTheWorkingDirectory() {
        StoreLocation l = StoreLocation.parse(StoreLocation.DEFAULT);
        assertThat(l.dialect()).isEqualTo(Dialect.SQLITE);
        assertThat(l.sqlitePath()).isEqualTo(Path.of("./sluice-delivery.db"));
    }

    @Test
    void aPostgresqlUrlIsUsedAsIs() {
        StoreLocation l = StoreLocation.parse("jdbc:postgresql://db:5432/app?user=sluice");
        assertThat(l.dialect()).isEqualTo(Dialect.POSTGRESQL);
        assertThat(l.jdbcUrl()).isEqualTo("jdbc:postgresql://db:5432/app?user=sluice");
    }

    @Test
    void anInMemorySqliteDatabaseIsRefusedBecauseItIsNotDurable() {
        assertThatThrownBy(() -> StoreLocation.parse("sqlite::memory:"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not durable");
    }

    @Test
    void anotherSchemeIsRefused() {
        assertThatThrownBy(() -> StoreLocation.parse("mysql://x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sqlite:PATH");
    }
}
