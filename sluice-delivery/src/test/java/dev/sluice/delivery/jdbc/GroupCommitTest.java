package dev.sluice.delivery.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteDataSource;

/** Executions of one statement queued together share a JDBC batch and each learns its own row count. */
class GroupCommitTest {

    @TempDir
    Path dir;

    @Test
    @Timeout(30)
    void updatesQueuedTogetherAnswerEachForItsOwnRow() throws Exception {
        Path file = dir.resolve("g.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)");
            s.execute("INSERT INTO t VALUES (1, 0), (2, 0)");
        }
        SQLiteDataSource ds = new SQLiteDataSource();
        ds.setUrl("jdbc:sqlite:" + file);
        Transactions tx = new Transactions(ds, Dialect.SQLITE, file, Duration.ofSeconds(5));
        try (GroupCommit group = new GroupCommit(tx, "group-commit-test")) {
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Object> first = CompletableFuture.supplyAsync(() -> group.submit("hold", c -> {
                holding.countDown();
                try {
                    release.await(); // the three updates below queue meanwhile and form the next group
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return null;
            }));
            holding.await();
            String sql = "UPDATE t SET v = ? WHERE id = ?";
            CompletableFuture<Boolean> one = CompletableFuture.supplyAsync(() -> group.submitUpdate("u", sql, ps -> {
                ps.setInt(1, 10);
                ps.setLong(2, 1);
            }));
            CompletableFuture<Boolean> two = CompletableFuture.supplyAsync(() -> group.submitUpdate("u", sql, ps -> {
                ps.setInt(1, 20);
                ps.setLong(2, 2);
            }));
            CompletableFuture<Boolean> none = CompletableFuture.supplyAsync(() -> group.submitUpdate("u", sql, ps -> {
                ps.setInt(1, 30);
                ps.setLong(2, 3); // no such row
            }));
            await("three updates queued behind the held commit").atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(5)).until(() -> group.queued() >= 3);
            release.countDown();
            first.get(10, TimeUnit.SECONDS);

            assertThat(one.get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(two.get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(none.get(10, TimeUnit.SECONDS)).isFalse();
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT v FROM t ORDER BY id")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(10);
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(20);
        }
    }
}
