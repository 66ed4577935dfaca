package dev.sluice.examples.demo.report;

import dev.sluice.examples.demo.series.Series;

/** {@link HtmlReportTest}'s readers of a report's per-second tables, for the end-to-end test. */
public final class HtmlReportTestAccess {

    private HtmlReportTestAccess() {
    }

    /** The per-second table {@code id} of {@code html}. */
    public static String table(String html, String id) {
        return HtmlReportTest.table(html, id);
    }

    /** The value of {@code s} in the row of {@code second} of {@code table}. */
    public static long cell(String table, int second, Series s) {
        return HtmlReportTest.cell(table, second, s);
    }
}
