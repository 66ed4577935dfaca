package dev.sluice.bench.delivery;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.sluice.delivery.Destination;
import dev.sluice.delivery.webhook.JdkWebhookTransport;
import dev.sluice.time.TimeSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The peer: db-scheduler (com.github.kagkarlsson) doing the same work on the same PostgreSQL. Each
 * event is a one-time task scheduled for now whose execution builds the same Standard Webhooks
 * request Sluice sends (signature included) and POSTs it with the same transport to the same
 * receiver; a non-2xx answer fails the execution (db-scheduler retries it). Each worker is a
 * {@link Scheduler} with its own pool and {@code threads} execution threads (Sluice's
 * concurrency), polling with lock-and-fetch ({@code FOR UPDATE SKIP LOCKED}), db-scheduler's
 * choice for throughput on PostgreSQL.
 */
final class DbSchedulerPeer {

    private DbSchedulerPeer() {}

    /** The task's data: which destination, the event id and key, the payload. */
    record Job(int destination, String eventId, String key, String payload) implements java.io.Serializable {}

    static double run(String pg, String schema, int workers, int threads, List<Destination> destinations,
            int events, int round) throws Exception {
        String url = pg + (pg.contains("?") ? "&" : "?") + "currentSchema=" + schema;
        try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
            s.execute("SET search_path TO " + schema);
            // db-scheduler's postgresql_tables.sql
            s.execute("CREATE TABLE scheduled_tasks (task_name TEXT NOT NULL, task_instance TEXT NOT NULL,"
                    + " task_data BYTEA, execution_time TIMESTAMP WITH TIME ZONE NOT NULL, picked BOOLEAN NOT NULL,"
                    + " picked_by TEXT, last_success TIMESTAMP WITH TIME ZONE, last_failure TIMESTAMP WITH TIME ZONE,"
                    + " consecutive_failures INT, last_heartbeat TIMESTAMP WITH TIME ZONE, version BIGINT NOT NULL,"
                    + " priority SMALLINT, PRIMARY KEY (task_name, task_instance))");
            s.execute("CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time)");
            s.execute("CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat)");
            s.execute("CREATE INDEX priority_execution_time_idx ON scheduled_tasks (priority DESC, execution_time ASC)");
        }
        CountDownLatch done = new CountDownLatch(events);
        JdkWebhookTransport transport = new JdkWebhookTransport(SignedSend.TIMEOUT, TimeSource.system());
        OneTimeTask<Job> task = Tasks.oneTime("webhook", Job.class).execute((instance, ctx) -> {
            Job j = instance.getData();
            SignedSend.send(transport, TimeSource.system(), destinations.get(j.destination()), j.eventId(), j.key(),
                    j.payload());
            done.countDown();
        });
        List<HikariDataSource> pools = new ArrayList<>();
        List<Scheduler> schedulers = new ArrayList<>();
        try {
            for (int i = 0; i < workers; i++) {
                HikariConfig hc = new HikariConfig();
                hc.setJdbcUrl(url);
                hc.setMaximumPoolSize(threads + 4);
                hc.setPoolName("db-scheduler-" + i);
                pools.add(new HikariDataSource(hc));
            }
            List<TaskInstance<?>> instances = new ArrayList<>(events);
            for (int i = 0; i < events; i++) {
                instances.add(task.instance("bench-" + round + "-" + i,
                        new Job(i % destinations.size(), "evt_" + round + "_" + i, "bench-" + round + "-" + i,
                                "{\"n\":" + i + "}")));
            }
            Scheduler.create(pools.get(0), task).build().scheduleBatch(instances, TimeSource.system().now().minusSeconds(1));
            long start = System.nanoTime();
            for (int i = 0; i < workers; i++) {
                Scheduler s = Scheduler.create(pools.get(i), task)
                        .threads(threads)
                        .pollingInterval(Duration.ofSeconds(1))
                        .pollUsingLockAndFetch(0.5, 1.0)
                        .schedulerName(new SchedulerName.Fixed("bench-" + i))
                        .build();
                schedulers.add(s);
                s.start();
            }
            if (!done.await(5, TimeUnit.MINUTES)) {
                throw new IllegalStateException("db-scheduler: " + done.getCount() + " events not delivered in 5 minutes");
            }
            return events / ((System.nanoTime() - start) / 1e9);
        } finally {
            schedulers.forEach(s -> s.stop());
            pools.forEach(HikariDataSource::close);
            transport.close();
            try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
        }
    }
}
