package dev.sluice.wire.dialect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The published header vectors of {@code testdata/header-vectors/}: one test per file, each running
 * every vector of the file through {@link DialectRegistry#read} and asserting every expected field
 * ({@link VectorChecker}). Where SPEC.md decides differently from a vector, the test says so and
 * asserts SPEC's value. The tally per file is printed at the end.
 */
class HeaderVectorTest {

    /** The caller's clock; used only by vectors without a {@code Date}. */
    static final Instant LOCAL_NOW = Instant.parse("2026-11-30T18:00:00Z");

    private static final Map<String, String> TALLY = new ConcurrentHashMap<>();

    @Test
    void anthropicRatelimitRfc3339() {
        run("anthropic-ratelimit-rfc3339.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void atlassianDcTokenBucket() {
        run("atlassian-dc-token-bucket.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void azureXMsRatelimit() {
        run("azure-x-ms-ratelimit.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void cloudflareApiV4() {
        run("cloudflare-api-v4.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void discordRatelimit() {
        // the classification rule (SPEC §4.2) wins over the vectors' reset_at_epoch: when both X-RateLimit-Reset (epoch) and
        // -Reset-After (relative) are sent, reset_at is the reset waited for, i.e. receipt + Reset-After
        // (these examples have no Date, so receipt is LOCAL_NOW; their 2016 epochs are long past).
        run("discord-ratelimit.json", DialectRegistry.standard(), new VectorChecker()
                .override("discord-headers-example", "reset_at_epoch", LOCAL_NOW.getEpochSecond() + 1,
                        "reset_at is Reset-After's instant")
                .override("discord-429-user", "reset_at_epoch",
                        new java.math.BigDecimal(LOCAL_NOW.getEpochSecond()).add(new java.math.BigDecimal("64.57")),
                        "reset_at is Reset-After's instant"));
    }

    @Test
    void draftPolliStyleWindowParam() {
        run("draft-polli-style-window-param.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void githubXRatelimitSecondary() {
        run("github-x-ratelimit-secondary.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void githubXRatelimit() {
        run("github-x-ratelimit.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void gitlabRatelimit() {
        run("gitlab-ratelimit.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void googleRpcStatusLegacyErrors() {
        // the classification rule (SPEC §4.2) wins over this vector's "overloaded": a 429 is overloaded only when its body says in
        // words that shared capacity is short; "Resource exhausted. Please try again later." with
        // reason rateLimitExceeded does not, so it is the caller's rate limit.
        run("google-rpc-status-legacy-errors.json", DialectRegistry.standard(), new VectorChecker()
                .overrideKind("vertex-429-resource-exhausted", "rate_limited", "429 is overloaded only when it says so"));
    }

    @Test
    void googleRpcStatusRetryinfo() {
        run("google-rpc-status-retryinfo.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void ietfRatelimit0103RatelimitLimitExpiringLimitQuotaPo() {
        run("ietf-ratelimit-01-03-ratelimit-limit-expiring-limit-quota-po.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void ietfRatelimit0406ExpressRateLimitDraft6Style() {
        run("ietf-ratelimit-04-06-express-rate-limit-draft-6-style.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void ietfRatelimit0406RatelimitLimitRemainingResetItemsR() {
        run("ietf-ratelimit-04-06-ratelimit-limit-remaining-reset-items-r.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void ietfRatelimit07RatelimitDictionaryLimitRemainingReset() {
        run("ietf-ratelimit-07-ratelimit-dictionary-limit-remaining-reset.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void ietfRatelimit08CloudflareApi() {
        run("ietf-ratelimit-08-cloudflare-api.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void ietfRatelimit08RatelimitRatelimitPolicySfListsDraft() {
        // SPEC §2.1 wins for the two examples that name policies with Tokens (quota;q=100) and omit the
        // required r: "a member that is not a String item is skipped", so nothing is reported.
        run("ietf-ratelimit-08-ratelimit-ratelimit-policy-sf-lists-draft-.json", DialectRegistry.standard(),
                new VectorChecker()
                        .override("ietf10-missing-remaining-token-id", "limit", null, "SPEC §2.1: token member skipped")
                        .override("ietf10-missing-remaining-token-id", "reset_in_s", null, "SPEC §2.1")
                        .override("ietf10-missing-remaining-token-id", "window_s", null, "SPEC §2.1")
                        .override("ietf10-missing-remaining-no-window", "limit", null, "SPEC §2.1: token member skipped")
                        .override("ietf10-missing-remaining-no-window", "reset_in_s", null, "SPEC §2.1"));
    }

    @Test
    void ietfRatelimit08WithBetaPrefixAtlassianJiraCloud() {
        run("ietf-ratelimit-08-with-beta-prefix-atlassian-jira-cloud.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void ietfRatelimitPolliRatelimitLimitRemainingResetDelta() {
        run("ietf-ratelimit-polli-ratelimit-limit-remaining-reset-delta.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void jsonBodyRetryAfter() {
        run("json-body-retry-after.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void oktaXRateLimit() {
        run("okta-x-rate-limit.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void openaiXRatelimitDurationAzureOpenai() {
        run("openai-x-ratelimit-duration-azure-openai.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void openaiXRatelimitDuration() {
        run("openai-x-ratelimit-duration.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void rdapNon429RateLimit() {
        run("rdap-non-429-rate-limit.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void retryAfterMalformed() {
        // SPEC §2.4 wins over the vector: fractional delay-seconds are rounded UP to whole seconds
        // (R02), so that honouring the hint never retries early; the vectors give the raw value.
        run("retry-after-malformed.json", DialectRegistry.standard(), new VectorChecker()
                .override("ra-sentry-fractional", "retry_after_s", 293, "SPEC §2.4: 292.052427053 s rounded up")
                .override("ra-msgraph-fractional", "retry_after_s", 3, "SPEC §2.4: 2.542 s rounded up"));
    }

    @Test
    void rfc6585429() {
        run("rfc6585-429.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void rfc9110RetryAfterHttpDate() {
        run("rfc9110-retry-after-http-date.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void rfc9110RetryAfter() {
        // SPEC §2.4 wins: an HTTP-date in the past means a wait of 0, not "no hint" (R01).
        run("rfc9110-retry-after.json", DialectRegistry.standard(), new VectorChecker()
                .override("rfc9110-retry-after-http-date", "retry_after_s", 0, "SPEC §2.4: past date -> 0"));
    }

    @Test
    void rfc9457ProblemDetails() {
        run("rfc9457-problem-details.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void salesforceSforceLimitInfo() {
        run("salesforce-sforce-limit-info.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void shopifyCallLimit() {
        run("shopify-call-limit.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void slackRetryAfter() {
        run("slack-retry-after.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void stripeError() {
        run("stripe-error.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void twilioError() {
        run("twilio-error.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void twitterXRateLimitLegacyV1() {
        run("twitter-x-rate-limit-legacy-v1.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void twitterXRateLimit() {
        run("twitter-x-rate-limit.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void xRateLimitMsReset() {
        // Prisjakt documents X-Rate-Limit-Reset in milliseconds; nothing in the response says so, and
        // the standard registry reads 600000 as delta seconds. A user dialect names the unit.
        DialectRegistry prisjakt = DialectRegistry.standard().toBuilder()
                .registerFirst(XRateLimitDialect.of("prisjakt", ResetUnit.DELTA_MILLIS))
                .build();
        run("x-rate-limit-ms-reset.json", prisjakt, new VectorChecker());
        var standard = DialectRegistry.standard().read(HeaderVectors.load("x-rate-limit-ms-reset.json").get(0).response(), LOCAL_NOW);
        assertThat(standard.policies().get(0).resetIn()).isEqualTo(Duration.ofSeconds(600_000));
    }

    @Test
    void xRatelimitDeltaReset() {
        run("x-ratelimit-delta-reset.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void xRatelimitEpochReset() {
        run("x-ratelimit-epoch-reset.json", DialectRegistry.standard(), new VectorChecker());
    }

    @Test
    void zendeskRatelimit() {
        run("zendesk-ratelimit.json", DialectRegistry.standard(), new VectorChecker());
    }

    // ---- vectors added by the project (files named sluice-*.json; see testdata/README.md)

    /** Kind 1: a rate limit or a spent quota stated only in a 4xx body ({@link ErrorCodeTable}). */
    @Test
    void sluiceBodyLimitCodes() {
        run("sluice-body-limit-codes.json", DialectRegistry.standard(), new VectorChecker());
    }

    /** Kind 2: a 429 is overloaded only when its body says shared capacity is short. */
    @Test
    void sluice429OverloadedOnlyWhenSaid() {
        run("sluice-429-overloaded-only-when-said.json", DialectRegistry.standard(), new VectorChecker());
    }

    /** Kind 3: every x-ratelimit family on a response, suffixed and plain. */
    @Test
    void sluiceXRatelimitEveryFamily() {
        run("sluice-x-ratelimit-every-family.json", DialectRegistry.standard(), new VectorChecker());
    }

    /** Kind 4: HTTP-dates with a numeric or spelled-out zone, read leniently and flagged. */
    @Test
    void sluiceHttpDateLenientZones() {
        run("sluice-http-date-lenient-zones.json", DialectRegistry.standard(), new VectorChecker());
    }

    /** Both an absolute and a relative reset: reset_at is the one waited for. */
    @Test
    void sluiceAbsoluteAndRelativeReset() {
        run("sluice-absolute-and-relative-reset.json", DialectRegistry.standard(), new VectorChecker());
    }

    /** Every vector file has its test above: a new file fails this until it gets one. */
    @Test
    void everyVectorFileIsCovered() throws IOException {
        Set<String> covered = Set.of(
                "anthropic-ratelimit-rfc3339.json",
                "atlassian-dc-token-bucket.json",
                "azure-x-ms-ratelimit.json",
                "cloudflare-api-v4.json",
                "discord-ratelimit.json",
                "draft-polli-style-window-param.json",
                "github-x-ratelimit-secondary.json",
                "github-x-ratelimit.json",
                "gitlab-ratelimit.json",
                "google-rpc-status-legacy-errors.json",
                "google-rpc-status-retryinfo.json",
                "ietf-ratelimit-01-03-ratelimit-limit-expiring-limit-quota-po.json",
                "ietf-ratelimit-04-06-express-rate-limit-draft-6-style.json",
                "ietf-ratelimit-04-06-ratelimit-limit-remaining-reset-items-r.json",
                "ietf-ratelimit-07-ratelimit-dictionary-limit-remaining-reset.json",
                "ietf-ratelimit-08-cloudflare-api.json",
                "ietf-ratelimit-08-ratelimit-ratelimit-policy-sf-lists-draft-.json",
                "ietf-ratelimit-08-with-beta-prefix-atlassian-jira-cloud.json",
                "ietf-ratelimit-polli-ratelimit-limit-remaining-reset-delta.json",
                "json-body-retry-after.json",
                "okta-x-rate-limit.json",
                "openai-x-ratelimit-duration-azure-openai.json",
                "openai-x-ratelimit-duration.json",
                "rdap-non-429-rate-limit.json",
                "retry-after-malformed.json",
                "rfc6585-429.json",
                "rfc9110-retry-after-http-date.json",
                "rfc9110-retry-after.json",
                "rfc9457-problem-details.json",
                "salesforce-sforce-limit-info.json",
                "shopify-call-limit.json",
                "slack-retry-after.json",
                "stripe-error.json",
                "twilio-error.json",
                "twitter-x-rate-limit-legacy-v1.json",
                "twitter-x-rate-limit.json",
                "x-rate-limit-ms-reset.json",
                "x-ratelimit-delta-reset.json",
                "x-ratelimit-epoch-reset.json",
                "zendesk-ratelimit.json",
                "sluice-body-limit-codes.json",
                "sluice-429-overloaded-only-when-said.json",
                "sluice-x-ratelimit-every-family.json",
                "sluice-http-date-lenient-zones.json",
                "sluice-absolute-and-relative-reset.json");
        try (Stream<java.nio.file.Path> listing = Files.list(HeaderVectors.folder())) {
            Set<String> present = listing.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".json"))
                    .collect(Collectors.toSet());
            assertThat(present).isEqualTo(covered);
        }
    }

    private static void run(String file, DialectRegistry registry, VectorChecker checker) {
        List<HeaderVectors.Vector> vectors = HeaderVectors.load(file);
        List<String> failures = new ArrayList<>();
        Map<String, Integer> byDialect = new TreeMap<>();
        int passed = 0;
        for (HeaderVectors.Vector v : vectors) {
            RateLimitSnapshot s = registry.read(v.response(), LOCAL_NOW);
            List<String> errors = checker.check(v, s, LOCAL_NOW);
            if (errors.isEmpty()) {
                passed++;
                byDialect.merge(String.valueOf(s.dialect()), 1, Integer::sum);
            } else {
                failures.add(v.id() + " [" + s.dialect() + "]: " + String.join("; ", errors));
            }
        }
        TALLY.put(file, passed + "/" + vectors.size() + " " + byDialect);
        assertThat(failures).as("vectors of %s", file).isEmpty();
        assertThat(vectors).isNotEmpty();
    }

    @AfterAll
    static void printTally() {
        new TreeMap<>(TALLY).forEach((file, tally) ->
                System.out.printf("header-vectors %-68s %s%n", file, tally));
    }
}
