package dev.sluice.bench.keys;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * CPU time spent serving key lookups, outside the threads that call the decision: the key cache's lookup
 * threads ({@code sluice-keys-lookup-*}, by {@link ThreadMXBean}) and the PostgreSQL backends of the store's
 * connections (those with this run's {@code application_name}, by {@code /proc/PID/schedstat}: nanoseconds on
 * a CPU). On a machine shared with other work, decisions per CPU second are steadier than decisions per
 * wall-clock second: time slices lost to other processes are not counted.
 */
final class CpuMeter {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final Connection admin;
    private final String applicationName;

    CpuMeter(Connection admin, String applicationName) {
        this.admin = admin;
        this.applicationName = applicationName;
    }

    /** Nanoseconds of CPU used so far by the lookup threads and the store's backends alive now. */
    long lookupNanos() {
        long sum = 0;
        for (ThreadInfo t : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (t != null && t.getThreadName().startsWith("sluice-keys-lookup-")) {
                long cpu = THREADS.getThreadCpuTime(t.getThreadId());
                sum += Math.max(0, cpu);
            }
        }
        return sum + backendNanos();
    }

    private long backendNanos() {
        long sum = 0;
        try (Statement s = admin.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT pid FROM pg_stat_activity WHERE application_name = '" + applicationName + "'")) {
            while (rs.next()) {
                try {
                    String stat = Files.readString(Path.of("/proc/" + rs.getInt(1) + "/schedstat"));
                    sum += Long.parseLong(stat.substring(0, stat.indexOf(' ')));
                } catch (Exception e) {
                    // a backend that just exited, or PostgreSQL on another machine: nothing to add
                }
            }
        } catch (SQLException e) {
            return 0;
        }
        return sum;
    }

    /** The CPU time of the calling thread, nanoseconds. */
    static long threadNanos() {
        return THREADS.getCurrentThreadCpuTime();
    }
}
