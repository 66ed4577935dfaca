package dev.sluice.sim.report;

import java.util.Locale;

/** Locale-independent number text, so that outputs are byte-identical on every machine. */
final class Numbers {

    private Numbers() {
    }

    /** An integer as is; otherwise three decimals, trailing zeros removed; {@code NaN} as {@code nan}. */
    static String format(double v) {
        if (Double.isNaN(v)) {
            return "nan";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        String s = String.format(Locale.ROOT, "%.3f", v);
        s = s.replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }

    /** Like {@link #format} with a fixed count of decimals, for aligned tables. */
    static String fixed(double v, int decimals) {
        if (Double.isNaN(v)) {
            return "-";
        }
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }
}
