package dev.sluice.wire.dialect;

import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.value.HttpDate;
import java.util.Optional;

/**
 * GitLab: {@code RateLimit-Limit}, {@code -Remaining}, {@code -Observed} (used), {@code -Name} (the
 * throttle, e.g. {@code throttle_authenticated_web}), {@code -Reset} and {@code -ResetTime}. Unlike
 * the IETF drafts that share these names, GitLab's {@code RateLimit-Reset} is an absolute Unix
 * epoch ({@code RateLimit-ResetTime} repeats it as an HTTP-date), read with
 * {@link ResetUnit#EPOCH_SECONDS} (a value that is no plausible epoch is read as a delta) and
 * converted with the response's {@code Date}. Recognised by
 * {@code RateLimit-Observed}, {@code RateLimit-Name} or {@code RateLimit-ResetTime}, which the
 * drafts do not define. Id {@code gitlab}.
 */
public final class GitLabDialect implements Dialect {

    public static final GitLabDialect INSTANCE = new GitLabDialect();

    private GitLabDialect() {
    }

    @Override
    public String id() {
        return "gitlab";
    }

    @Override
    public Optional<DialectReading> read(DialectInput in) {
        if (!in.has("ratelimit-observed") && !in.has("ratelimit-name") && !in.has("ratelimit-resettime")) {
            return Optional.empty();
        }
        PolicySnapshot.Builder p = PolicySnapshot.builder()
                .name(in.header("ratelimit-name"))
                .quota(in.count("ratelimit-limit"))
                .remaining(in.count("ratelimit-remaining"))
                .used(in.usedCount("ratelimit-observed"))
                .quotaUnit("requests");
        if (!ResetUnit.EPOCH_SECONDS.applyLongest(in.members("ratelimit-reset"), in.responseTime(), p)) {
            var at = HttpDate.parse(in.header("ratelimit-resettime"), in.responseTime());
            if (at != null) {
                ResetUnit.absolute(at, in.responseTime(), p);
            }
        }
        return Optional.of(DialectReading.builder().policy(p.build()).build());
    }
}
