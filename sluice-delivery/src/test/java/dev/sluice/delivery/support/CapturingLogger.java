package dev.sluice.delivery.support;

import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A {@link System.Logger} that keeps every line, for tests of what the worker logs. */
public final class CapturingLogger implements System.Logger {

    /** One logged line. */
    public record Line(Level level, String message, Throwable thrown) {
    }

    private final List<Line> lines = new CopyOnWriteArrayList<>();
    private final CountDownLatch first = new CountDownLatch(1);

    public List<Line> lines() {
        return List.copyOf(lines);
    }

    /** Waits up to {@code seconds} for the first line. */
    public boolean awaitFirst(long seconds) throws InterruptedException {
        return first.await(seconds, TimeUnit.SECONDS);
    }

    @Override
    public String getName() {
        return "capture";
    }

    @Override
    public boolean isLoggable(Level level) {
        return true;
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
        lines.add(new Line(level, msg, thrown));
        first.countDown();
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        log(level, bundle, params == null || params.length == 0 ? format
                : java.text.MessageFormat.format(format, params), (Throwable) null);
    }
}
