package dev.sluice.wire.dialect;

import dev.sluice.wire.problem.ProblemDetails;
import java.util.Optional;

/**
 * An RFC 9457 problem body on a response that carries no rate-limit fields (Sluice's own edge
 * always sends fields too, so this matters for other servers). The registry reads every problem
 * body whatever dialect matched ({@code type}, {@code limit}, {@code violated-policies},
 * {@code retry_after_s}); this dialect only names the match. Id {@code rfc9457}.
 */
public final class ProblemDetailsDialect implements Dialect {

    public static final ProblemDetailsDialect INSTANCE = new ProblemDetailsDialect();

    private ProblemDetailsDialect() {
    }

    @Override
    public String id() {
        return "rfc9457";
    }

    @Override
    public Optional<DialectReading> read(DialectInput in) {
        if (in.status() < 400) {
            return Optional.empty();
        }
        ProblemDetails problem = in.problem().orElse(null);
        if (problem == null) {
            return Optional.empty();
        }
        DialectReading.Builder r = DialectReading.builder();
        r.attribute("problem_type", problem.type());
        return Optional.of(r.build());
    }
}
