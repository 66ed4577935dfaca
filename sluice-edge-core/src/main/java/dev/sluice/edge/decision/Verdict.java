package dev.sluice.edge.decision;

import dev.sluice.edge.response.EdgeResponse;
import dev.sluice.edge.response.Header;
import dev.sluice.edge.softlimit.QuotaWarning;
import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.Denied;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The edge's decision on one request, made from its head alone (SPEC §3.1): either the edge
 * {@linkplain Answer answers} itself (a rejection, a usage report) and the body is never read, or it
 * {@linkplain Forward forwards} the request to the upstream. Immutable.
 */
public sealed interface Verdict permits Verdict.Answer, Verdict.Forward, Verdict.Replay {

    /** What is counted about the decision. */
    DecisionRecord record();

    /**
     * The edge writes {@code response}; nothing reaches the upstream, and the request body (if any) is
     * discarded or the connection/stream closed (SPEC §3.1).
     *
     * @param response what the client gets
     * @param record what is counted
     * @param denial the limiter's denial behind a 429 (its policy and {@code violated-policies}, for a
     *     stage that answers that key later, SPEC §3.12); empty for every other answer
     */
    record Answer(EdgeResponse response, DecisionRecord record, Optional<Denied> denial) implements Verdict {
        public Answer {
            Objects.requireNonNull(response, "response");
            Objects.requireNonNull(record, "record");
            Objects.requireNonNull(denial, "denial");
        }

        /** An answer that is not a limiter's denial. */
        public Answer(EdgeResponse response, DecisionRecord record) {
            this(response, record, Optional.empty());
        }
    }

    /**
     * A recorded answer may be replayed (SPEC §3.11), if the request's body is the recorded one: the edge
     * reads the body (never forwarding it), digests it with SHA-256, and writes {@code replay} when the
     * digest is {@code bodySha256}, {@code conflict} otherwise. Nothing reaches the upstream and nothing is
     * charged.
     *
     * @param bodySha256 the recorded body digest, 64 lower-case hex digits
     * @param replay the recorded answer (with {@code Idempotent-Replayed: true})
     * @param record what is counted when replayed
     * @param conflict the 409 {@code idempotency_conflict} for another body
     * @param conflictRecord what is counted when the body differs
     */
    record Replay(String bodySha256, EdgeResponse replay, DecisionRecord record, EdgeResponse conflict,
            DecisionRecord conflictRecord) implements Verdict {
        public Replay {
            Objects.requireNonNull(bodySha256, "bodySha256");
            Objects.requireNonNull(replay, "replay");
            Objects.requireNonNull(record, "record");
            Objects.requireNonNull(conflict, "conflict");
            Objects.requireNonNull(conflictRecord, "conflictRecord");
        }
    }

    /**
     * The request goes to the upstream.
     *
     * @param request the request
     * @param responseHeaders fields to add to whatever response the client gets (the upstream's, or
     *     the edge's own 502/504): {@code RateLimit-Policy}, {@code RateLimit} and maybe
     *     {@code RateLimit-Warning}; empty for anonymous routes (SPEC §2.2, §3.7)
     * @param charge what the limiter charged, to refund on an upstream 503 (SPEC §3.9); empty in
     *     dry-run when the limiter denied
     * @param record what is counted (in dry-run, the denial that was not enforced)
     * @param warnings soft-limit events this request triggered (SPEC §3.8)
     * @param listeners told how the exchange ends
     */
    record Forward(EdgeRequest request, List<Header> responseHeaders, Optional<Allowed> charge,
            DecisionRecord record, List<QuotaWarning> warnings, List<ExchangeListener> listeners)
            implements Verdict {
        public Forward {
            Objects.requireNonNull(request, "request");
            responseHeaders = List.copyOf(responseHeaders);
            Objects.requireNonNull(charge, "charge");
            Objects.requireNonNull(record, "record");
            warnings = List.copyOf(warnings);
            listeners = List.copyOf(listeners);
        }

        /** This verdict with {@code listener} added (a stage's hook on the exchange's end). */
        public Forward withListener(ExchangeListener listener) {
            List<ExchangeListener> more = new ArrayList<>(listeners.size() + 1);
            more.addAll(listeners);
            more.add(Objects.requireNonNull(listener, "listener"));
            return new Forward(request, responseHeaders, charge, record, warnings, more);
        }
    }
}
