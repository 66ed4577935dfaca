package dev.sluice.delivery.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.delivery.Destination;
import dev.sluice.delivery.Rate;
import dev.sluice.delivery.support.Postgres;
import dev.sluice.limiter.gcra.Gcra;
import dev.sluice.limiter.gcra.GcraParams;
import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The destination bucket's GCRA is SQL, written apart from {@link Gcra}: on random traces (rates,
 * bursts, steps of time including none and small steps back, R15) both must admit the same requests
 * and, for a refused one, name the same wait to the microsecond. {@link Gcra} runs with one tick per
 * µs, emission interval {@code T = Rate.intervalMicros()} and capacity {@code burst · T}.
 */
class DestinationBucketGcraDifferentialTest {

    private static final int TRACES = 200;
    private static final int STEPS = 60;
    private static final double[] RATES = {0.5, 1, 3, 7, 10, 100, 333, 1000, 250_000};

    @TempDir
    Path dir;

    @Test
    void sqliteBucketAdmitsAndWaitsExactlyAsGcra() throws Exception {
        Path db = dir.resolve("gcra.db");
        JdbcDeliveryStore.open("sqlite:" + db).close(); // creates the tables
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db)) {
            compare(c, new DestinationBucket(Tables.in(null), Dialect.SQLITE), 20261201L);
        }
    }

    @Test
    void postgresBucketAdmitsAndWaitsExactlyAsGcra() throws Exception {
        String url = Postgres.url();
        String schema = Postgres.newSchema();
        try {
            JdbcDeliveryStore.open(url, JdbcDeliveryStore.Options.defaults().withSchema(schema).withPoolSize(1)).close();
            try (Connection c = DriverManager.getConnection(url)) {
                compare(c, new DestinationBucket(Tables.in(schema), Dialect.POSTGRESQL), 20261202L);
            }
        } finally {
            Postgres.drop(schema);
        }
    }

    /** Runs every trace in one transaction on {@code c} and rolls it back: nothing is left behind. */
    private static void compare(Connection c, DestinationBucket bucket, long seed) throws SQLException {
        c.setAutoCommit(false);
        SplittableRandom random = new SplittableRandom(seed);
        int granted = 0;
        int refused = 0;
        try {
            for (int trace = 0; trace < TRACES; trace++) {
                Rate rate = new Rate(RATES[random.nextInt(RATES.length)], 1 + random.nextInt(20));
                String name = "gcra-" + trace;
                long now = 1_764_547_200_000_000L + random.nextLong(1_000_000_000L); // 2025-12-01 + up to 1000 s
                bucket.upsert(c, new Destination(name, URI.create("http://127.0.0.1:9/hooks"), rate, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", true),
                        now);
                long interval = rate.intervalMicros();
                GcraParams p = new GcraParams(1, interval, rate.burst() * interval, true);
                long tat = 0; // a fresh row: full
                for (int step = 0; step < STEPS; step++) {
                    now += GcraTraceSteps.next(random, interval, rate.burst());
                    long next = Gcra.admit(p, tat, now, 1);
                    DestinationBucket.Take take = bucket.take(c, name, now);
                    String where = name + " (" + rate + ") step " + step + " at " + now + ", tat " + tat;
                    if (next != Gcra.DENIED) {
                        assertThat(take).as(where).isInstanceOf(DestinationBucket.Take.Granted.class);
                        tat = next;
                        granted++;
                    } else {
                        assertThat(take).as(where).isEqualTo(new DestinationBucket.Take.Wait(Gcra.waitTicks(p, tat, now, 1)));
                        refused++;
                    }
                }
            }
        } finally {
            c.rollback();
        }
        // the traces exercise both outcomes in earnest
        assertThat(granted).isGreaterThan(TRACES * STEPS / 5);
        assertThat(refused).isGreaterThan(TRACES * STEPS / 10);
    }
}
