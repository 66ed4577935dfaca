package dev.sluice.wire.dialect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.http.HttpFields;
import dev.sluice.wire.http.ResponseView;
import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * The reader never throws for any header value or body, and never yields a negative duration or
 * remaining count (SPEC §2.4, §2.6); nor does any standard dialect on its own. Header names come from every dialect's vocabulary; values and
 * bodies mix real shapes (numbers, dates, durations, structured fields, JSON) with noise.
 */
class DialectRobustnessProperties {

    private static final String[] NAMES = {
        "RateLimit", "RateLimit-Policy", "Beta-RateLimit", "Beta-RateLimit-Policy", "RateLimit-Limit",
        "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Observed", "RateLimit-Name", "RateLimit-ResetTime",
        "Retry-After", "retry-after-ms", "x-ms-retry-after-ms", "Date", "Age", "Content-Type", "Server",
        "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "x-ratelimit-used", "x-ratelimit-resource",
        "x-rate-limit-limit", "x-rate-limit-reset", "x-ratelimit-limit-requests", "x-ratelimit-remaining-tokens",
        "x-ratelimit-reset-requests", "anthropic-ratelimit-requests-reset", "anthropic-ratelimit-tokens-remaining",
        "x-ratelimit-reset-after", "x-ratelimit-bucket", "x-ratelimit-global", "x-ratelimit-scope",
        "X-Shopify-Shop-Api-Call-Limit", "Sforce-Limit-Info", "x-ms-ratelimit-remaining-resource",
        "x-ms-ratelimit-remaining-subscription-reads", "zendesk-ratelimit-x", "x-rate-limit", "x-api-remaining-credits",
        "X-Beta-Ratelimit-Reset", "x-ratelimit-interval-seconds", "x-github-request-id",
    };
    private static final String[] VALUES = {
        "", "0", "-1", "-43", "5", "1.5", "0.503", "9999999999", "99999999999999999999", "1e10000", "inf", "nan",
        "1698097722", "1796061645250", "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994", "Fri, 31 Dec 9999 23:59:59 GMT", "6m0s", "2m59.56s", "-1s", "99999999999h",
        "2024-03-26T20:00:00Z", "2026-03-26T16:00Z", "\"burst\";q=20;w=2, \"daily\";q=10000;w=86400",
        "\"burst\";r=-7;t=-2", "\"a\";r=999999999999999;t=999999999999999", "limit=100, remaining=-5, reset=30",
        "10, 10;w=1, 50;w=60", "100;window=60", "32/40", "41/-40", "api-usage=18/5000; x=1/2(appName=",
        "a;1,b;-2,;,", ";", ",;,", "1;;w=", "total=100; remaining=99; resets=-41", "true", "application/problem+json", "GitHub.com",
        "\"x\";pk=:AAA=:;r=1", "(1 2);r=3", "?1", "@1659578233", "%\"caf%c3%a9\"",
    };
    private static final String[] BODIES = {
        null, "", "{", "[]", "[{}]", "null", "{\"retry_after\":-1}", "{\"retry_after\":1e400}", "{\"retry_after\":\"x\"}",
        "{\"type\":\"https://x/errors/quota_exhausted\",\"limit\":\"daily\",\"retry_after_s\":-5}",
        "{\"type\":7,\"violated-policies\":[1,null,{}],\"retry_after_s\":1e999}",
        "{\"error\":{\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[{\"@type\":\"google.rpc.RetryInfo\",\"retryDelay\":\"-5s\"},"
                + "{\"@type\":\"google.rpc.QuotaFailure\",\"violations\":[{\"quotaId\":null,\"quotaValue\":-3}]},7]}}",
        "{\"error\":{\"code\":\"insufficient_quota\"}}", "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}",
        "{\"success\":false,\"errors\":[{\"code\":10100,\"message\":\"More than 99999999999999999999 requests per 1 seconds\"}]}",
        "{\"message\":\"x\",\"retry_after\":99999999999999999999,\"global\":true}", "{\"limit\":-2,\"current\":-9}",
        "{\"limit\":99999999999999999999999,\"current\":1.5}", "You have exceeded a secondary rate limit",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    };

    @Property(tries = 3000, seed = "20261130")
    void readNeverThrowsAndNeverGoesNegative(@ForAll("responses") ResponseView response,
            @ForAll("instants") Instant localNow) {
        // the registry skips a dialect that throws; the standard ones must not rely on that
        for (Dialect d : DialectRegistry.standardDialects()) {
            d.read(new DialectInput(response, localNow));
        }
        RateLimitSnapshot s = DialectRegistry.standard().read(response, localNow);
        assertThat(s.outcome()).isNotNull();
        assertNotNegative(s.retryAfter());
        assertNotNegative(s.longestWait());
        for (PolicySnapshot p : s.policies()) {
            assertNotNegative(p.resetIn());
            assertThat(p.remaining() == null || p.remaining() >= 0).isTrue();
            assertThat(p.used() == null || p.used() >= 0).isTrue();
            assertThat(p.quota() == null || p.quota() >= 0).isTrue();
            assertThat(p.windowSeconds() == null || p.windowSeconds() > 0).isTrue();
            if (p.resetIn() != null) {
                assertThat(p.resetIn().toNanos()).isNotNegative(); // saturated values still fit in nanoseconds
            }
        }
        if (s.retryAfter() != null) {
            assertThat(s.retryAfter().toNanos()).isNotNegative();
        }
        s.mostRestrictive();
    }

    private static void assertNotNegative(Duration d) {
        assertThat(d == null || !d.isNegative()).as("duration %s", d).isTrue();
    }

    @Provide
    Arbitrary<ResponseView> responses() {
        Arbitrary<String> value = Arbitraries.oneOf(
                Arbitraries.of(VALUES),
                Arbitraries.strings().withChars("0123456789.-+ ,;=\"():/abcdefhmsuzGMTZ\u00b5\u0000\u00e9").ofMaxLength(30),
                Arbitraries.strings().ofMaxLength(20));
        Arbitrary<Tuple.Tuple2<String, String>> field = Combinators.combine(Arbitraries.of(NAMES), value).as(Tuple::of);
        Arbitrary<List<Tuple.Tuple2<String, String>>> fields = field.list().ofMaxSize(8);
        Arbitrary<String> body = Arbitraries.oneOf(Arbitraries.of(BODIES), Arbitraries.strings().ofMaxLength(60),
                value.map(v -> "{\"retry_after\":" + v + ",\"error\":{\"code\":" + v + "}}"),
                value.map(v -> "{\"retry_after\":" + v + ",\"global\":true,\"limit\":" + v + ",\"current\":" + v + "}"),
                value.map(v -> "{\"error\":{\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[{\"@type\":"
                        + "\"google.rpc.RetryInfo\",\"retryDelay\":\"" + v + "s\"},{\"@type\":\"google.rpc.ErrorInfo\","
                        + "\"metadata\":{\"quota_limit\":\"" + v + "\",\"quota_limit_value\":" + v + "}}]}}"),
                value.map(v -> "{\"type\":\"https://x/errors/" + v + "\",\"status\":" + v + ",\"limit\":\"" + v
                        + "\",\"retry_after_s\":" + v + ",\"violated-policies\":[\"" + v + "\"]}"),
                value.map(v -> "{\"success\":false,\"errors\":[{\"code\":" + v + ",\"message\":\"More than " + v
                        + " requests per " + v + " seconds\"}]}"));
        Arbitrary<Integer> status = Arbitraries.oneOf(Arbitraries.of(200, 400, 403, 420, 422, 429, 503, 529),
                Arbitraries.integers().between(100, 599));
        return Combinators.combine(status, fields, body).as((st, fs, b) -> {
            HttpFields.Builder h = HttpFields.builder();
            fs.forEach(t -> h.add(t.get1(), t.get2()));
            return new ResponseView(st, h.build(), b);
        });
    }

    @Provide
    Arbitrary<Instant> instants() {
        return Arbitraries.oneOf(Arbitraries.longs().between(0, 253_402_300_799L).map(Instant::ofEpochSecond),
                Arbitraries.of(Instant.MIN, Instant.MAX, Instant.EPOCH));
    }
}
