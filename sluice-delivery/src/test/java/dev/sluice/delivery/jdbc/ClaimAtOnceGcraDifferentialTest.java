package dev.sluice.delivery.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.delivery.Destination;
import dev.sluice.delivery.Event;
import dev.sluice.delivery.Rate;
import dev.sluice.delivery.spi.AttemptStart;
import dev.sluice.delivery.spi.ClaimedStart;
import dev.sluice.delivery.support.Postgres;
import dev.sluice.limiter.gcra.Gcra;
import dev.sluice.limiter.gcra.GcraParams;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL's one-statement claim computes a batch's tokens in closed form ({@code granted =
 * min(n, ⌊((b − 1)·T − s) / T⌋ + 1)}), apart from {@link Gcra}: on random traces (rates, bursts,
 * batch sizes, steps of time including none and small steps back, R15) a batch of {@code n} rows must
 * start exactly the rows that {@code n} calls of {@link Gcra#admit} in a row admit, and every row
 * left over must wait exactly what {@link Gcra#waitTicks} names, to the microsecond.
 */
class ClaimAtOnceGcraDifferentialTest {

    private static final int TRACES = 40;
    private static final int STEPS = 12;
    private static final double[] RATES = {0.5, 1, 3, 7, 10, 100, 333, 1000, 250_000};
    private static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void aBatchTakesTheTokensThatGcraAdmitsOneByOne() throws Exception {
        String url = Postgres.url();
        String schema = Postgres.newSchema();
        SplittableRandom random = new SplittableRandom(20261207L);
        int granted = 0;
        int refused = 0;
        try (JdbcDeliveryStore store = JdbcDeliveryStore.open(url,
                JdbcDeliveryStore.Options.defaults().withSchema(schema).withPoolSize(2));
                Connection raw = DriverManager.getConnection(url); Statement st = raw.createStatement()) {
            Tables t = Tables.in(schema);
            OutboxRepository outbox = new OutboxRepository(t, new DestinationBucket(t, Dialect.POSTGRESQL));
            raw.setAutoCommit(false);
            long created = 1_764_460_800_000_000L; // 2025-11-30: every event is due at every step
            int serial = 0;
            for (int trace = 0; trace < TRACES; trace++) {
                Rate rate = new Rate(RATES[random.nextInt(RATES.length)], 1 + random.nextInt(20));
                String name = "gcra-" + trace;
                long now = 1_764_547_200_000_000L + random.nextLong(1_000_000_000L); // 2025-12-01 + up to 1000 s
                store.upsertDestination(new Destination(name, URI.create("http://127.0.0.1:9/hooks"), rate,
                        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", true), Micros.toInstant(now));
                long interval = rate.intervalMicros();
                GcraParams p = new GcraParams(1, interval, rate.burst() * interval, true);
                long tat = 0; // a fresh row: full
                for (int step = 0; step < STEPS; step++) {
                    now += GcraTraceSteps.next(random, interval, rate.burst());
                    int n = 1 + random.nextInt(2 * rate.burst() + 2);
                    for (int i = 0; i < n; i++) { // one transaction for the step's rows
                        serial++;
                        outbox.enqueue(raw, new Event("evt_" + serial, name, "t", "k" + serial, "{}",
                                Micros.toInstant(created)), Instant.parse("2100-01-01T00:00:00Z"));
                    }
                    raw.commit();
                    // the expected answers: n admissions in a row
                    int admitted = 0;
                    for (int i = 0; i < n; i++) {
                        long next = Gcra.admit(p, tat, now, 1);
                        if (next == Gcra.DENIED) {
                            break;
                        }
                        tat = next;
                        admitted++;
                    }
                    long wait = admitted < n ? Gcra.waitTicks(p, tat, now, 1) : 0;

                    List<ClaimedStart> batch = store.claimAndStart("w", 1_000, Micros.toInstant(now), LEASE);

                    String where = name + " (" + rate + ") step " + step + " at " + now + ", " + n + " rows";
                    assertThat(batch).as(where).hasSize(n);
                    assertThat(batch.subList(0, admitted)).as(where)
                            .allSatisfy(b -> assertThat(b.start()).containsInstanceOf(AttemptStart.Proceed.class));
                    Instant eligible = Micros.toInstant(now + wait);
                    assertThat(batch.subList(admitted, n)).as(where).allSatisfy(b -> assertThat(b.start())
                            .contains(new AttemptStart.NoToken(Duration.ofNanos(wait * 1_000), eligible)));
                    granted += admitted;
                    refused += n - admitted;
                    // this step's rows leave the queue, so the next batch is exactly the next step's rows
                    st.executeUpdate("UPDATE " + t.ledger() + " SET state = 'delivered'");
                    raw.commit();
                }
            }
        } finally {
            Postgres.drop(schema);
        }
        // the traces exercise both outcomes in earnest
        assertThat(granted).isGreaterThan(TRACES * STEPS);
        assertThat(refused).isGreaterThan(TRACES * STEPS / 2);
    }
}
