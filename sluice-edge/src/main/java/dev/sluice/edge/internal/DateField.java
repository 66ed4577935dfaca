package dev.sluice.edge.internal;

import dev.sluice.time.TimeSource;
import io.netty.util.AsciiString;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Objects;

/**
 * The {@code Date} field of the responses the edge writes itself (RFC 9110 §6.6.1: an origin server with a
 * clock sends it on every 2xx, 3xx and 4xx response, and may on 5xx; the edge sends it on all of them so
 * that a client converting an HTTP-date, or reading a quota's reset, has the server's "now", SPEC §2.4). The
 * value is the IMF-fixdate of the {@link TimeSource}'s current second, formatted once per second: a
 * response costs one clock read and a comparison.
 *
 * <p>Thread-safe: the cached value is one immutable pair behind a volatile reference; two threads crossing a
 * second boundary at once may both format it, harmlessly.
 */
public final class DateField {

    /** RFC 9110 §5.6.7 IMF-fixdate, e.g. {@code Mon, 30 Nov 2026 18:40:00 GMT}. */
    private static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ENGLISH).withZone(ZoneOffset.UTC);

    private record Stamp(long epochSecond, AsciiString value) {}

    private final TimeSource time;
    private volatile Stamp stamp = new Stamp(Long.MIN_VALUE, AsciiString.EMPTY_STRING);

    public DateField(TimeSource time) {
        this.time = Objects.requireNonNull(time, "time");
    }

    /** The field value for now. */
    public AsciiString now() {
        long second = time.now().getEpochSecond();
        Stamp s = stamp;
        if (s.epochSecond() != second) {
            s = new Stamp(second, new AsciiString(format(Instant.ofEpochSecond(second))));
            stamp = s;
        }
        return s.value();
    }

    /** {@code instant} as an IMF-fixdate (RFC 9110 §5.6.7), truncated to the second. */
    public static String format(Instant instant) {
        return IMF_FIXDATE.format(instant);
    }
}
