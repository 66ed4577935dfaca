package dev.sluice.examples.demo.report;

import dev.sluice.examples.demo.series.SecondCounts;
import dev.sluice.examples.demo.series.Series;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The per-second table the demo prints while it runs: one row per second, plus (on a terminal
 * only) a progress line kept at the bottom with a carriage return. When stdout is not a terminal,
 * the output is plain lines — no carriage returns, no escape sequences — so a log or a pipe reads
 * cleanly. Not thread-safe: one thread prints.
 */
public final class LiveTable {

    private final PrintWriter out;
    private final boolean terminal;
    private final List<Series> columns;
    private boolean progressShown;
    private int rowsPrinted;

    /**
     * @param out where to print
     * @param terminal whether {@code out} is an interactive terminal (enables the progress line)
     * @param sdk whether to show the SDK's columns (local drops, budget exhaustions)
     */
    public LiveTable(PrintWriter out, boolean terminal, boolean sdk) {
        this.out = out;
        this.terminal = terminal;
        List<Series> cols = new ArrayList<>();
        for (Series s : Series.values()) {
            if (sdk || !s.sdkOnly()) {
                cols.add(s);
            }
        }
        this.columns = List.copyOf(cols);
    }

    /** The column headings. */
    public void header() {
        clearProgress();
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%4s", "s"));
        for (Series s : columns) {
            b.append(String.format(Locale.ROOT, " %9s", s.column()));
        }
        out.println(b);
        out.flush();
    }

    /** One second's row; {@code note} (may be empty) goes after the numbers ("blip"). */
    public void row(SecondCounts c, String note) {
        rowsPrinted++;
        clearProgress();
        out.println(format(c, note));
        out.flush();
    }

    /** How many rows {@link #row} printed. */
    public int rowsPrinted() {
        return rowsPrinted;
    }

    /** The row of what happened while the fleet stopped, labelled "stop". */
    public void stoppingRow(SecondCounts c) {
        clearProgress();
        out.println("stop" + format(c, "while stopping: calls in progress finish their retries").substring(4));
        out.flush();
    }

    /** The row text of {@code c}. */
    public String format(SecondCounts c, String note) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%4d", c.second()));
        for (Series s : columns) {
            b.append(String.format(Locale.ROOT, " %9d", c.get(s)));
        }
        if (!note.isEmpty()) {
            b.append("  ").append(note);
        }
        return b.toString();
    }

    /**
     * Shows {@code text} as the progress line (terminal only: rewritten in place; elsewhere
     * nothing is printed).
     */
    public void progress(String text) {
        if (!terminal) {
            return;
        }
        out.print("\r\033[2K" + text);
        out.flush();
        progressShown = true;
    }

    /** A plain line of text (setup, notices), printed above the progress line. */
    public void line(String text) {
        clearProgress();
        out.println(text);
        out.flush();
    }

    /** A progress bar of {@code width} characters for {@code done} of {@code total}. */
    public static String bar(double done, double total, int width) {
        int filled = total <= 0 ? width : (int) Math.round(width * Math.max(0, Math.min(1, done / total)));
        return "[" + "#".repeat(filled) + ".".repeat(width - filled) + "]";
    }

    private void clearProgress() {
        if (progressShown) {
            out.print("\r\033[2K");
            progressShown = false;
        }
    }
}
