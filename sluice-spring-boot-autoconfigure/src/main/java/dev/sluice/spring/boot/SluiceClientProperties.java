package dev.sluice.spring.boot;

import java.net.URI;
import java.time.Duration;

/**
 * One named API the application calls, {@code sluice.clients.<name>}.
 *
 * @param baseUrl the API's base URL, set on the {@code RestClient} builder
 * @param pacer the API's documented limit (SPEC §4.6); the SDK paces at 90 % of it and follows the
 *     {@code RateLimit} fields it answers with. Absent: the SDK paces from the answers alone
 * @param deadline each call's deadline, all retries and waits included; absent for none
 */
public record SluiceClientProperties(URI baseUrl, Pacer pacer, Duration deadline) {

    /**
     * @param rate documented requests per second
     * @param burst documented burst (default: the rate)
     */
    public record Pacer(Double rate, Double burst) {
    }
}
