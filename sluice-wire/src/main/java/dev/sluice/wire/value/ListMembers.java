package dev.sluice.wire.value;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Splits field lines into the members of the comma-separated list a recipient may have made of
 * them (RFC 9110 §5.3: several field lines of one name are equivalent to one line joining their
 * values with commas). Used where one field may arrive twice, either as two lines
 * ({@code Retry-After: 5} and {@code Retry-After: 10}) or as one joined line
 * ({@code Retry-After: 5, 10}), so that both forms are read alike.
 *
 * <p>The comma inside an HTTP-date ({@code Wed, 21 Oct 2015 07:28:00 GMT}, RFC 850's
 * {@code Sunday, 06-Nov-94 ...}) does not separate members: a member that is only a day name is
 * joined with the one after it. Quoted strings are not special: the fields read this way carry
 * numbers, dates and durations. Empty members are dropped. Never throws; stateless and thread-safe.
 */
public final class ListMembers {

    private ListMembers() {
    }

    /**
     * The members of {@code lines}, stripped, in order.
     *
     * @param lines the field lines of one field, in arrival order; may be empty
     * @return the non-empty members; empty when there are none
     */
    public static List<String> of(List<String> lines) {
        List<String> out = new ArrayList<>(lines.size() + 1);
        for (String line : lines) {
            if (line != null) {
                split(line, out);
            }
        }
        return out;
    }

    /** The members of one field value (see {@link #of(List)}). */
    public static List<String> of(@Nullable String value) {
        return value == null ? List.of() : of(List.of(value));
    }

    private static void split(String line, List<String> out) {
        if (line.indexOf(',') < 0) {
            String s = line.strip();
            if (!s.isEmpty()) {
                out.add(s);
            }
            return;
        }
        String[] parts = line.split(",", -1);
        for (int i = 0; i < parts.length; i++) {
            String s = parts[i].strip();
            if (HttpDate.isDayName(s) && i + 1 < parts.length) {
                s = s + ", " + parts[++i].strip(); // the comma of an HTTP-date
            }
            if (!s.isEmpty()) {
                out.add(s);
            }
        }
    }
}
