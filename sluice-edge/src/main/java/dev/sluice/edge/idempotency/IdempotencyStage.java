package dev.sluice.edge.idempotency;

import dev.sluice.edge.decision.BodyTap;
import dev.sluice.edge.decision.Caller;
import dev.sluice.edge.decision.DecisionOutcome;
import dev.sluice.edge.decision.DecisionRecord;
import dev.sluice.edge.decision.EdgeRequest;
import dev.sluice.edge.decision.Verdict;
import dev.sluice.edge.pipeline.EdgeStage;
import dev.sluice.edge.pipeline.ThrottledLog;
import dev.sluice.edge.response.EdgeResponse;
import dev.sluice.edge.response.Header;
import dev.sluice.edge.response.Problems;
import dev.sluice.limiter.idempotency.Claim;
import dev.sluice.limiter.idempotency.IdempotencyKey;
import dev.sluice.limiter.idempotency.IdempotencyStore;
import dev.sluice.limiter.idempotency.RecordedResponse;
import dev.sluice.limiter.idempotency.RequestFingerprint;
import dev.sluice.limiter.idempotency.RequestTarget;
import dev.sluice.time.TimeSource;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.slf4j.LoggerFactory;

/**
 * Idempotent replays (SPEC §3.11), a stage before the shedder and the limiter, so that a replay reaches
 * neither the upstream nor any policy.
 *
 * <ul>
 *   <li>A route with {@code idempotency-required} answers a request without {@code Idempotency-Key}
 *       with 400 {@code idempotency_key_required}; a malformed key (empty, over 255 characters, not
 *       printable ASCII, several field lines) is 400 {@code bad_request}. Other routes honour a key on
 *       any method but GET, HEAD, OPTIONS and TRACE. Anonymous routes have no key to scope records by
 *       and are left alone.</li>
 *   <li>The first request claims (API key, Idempotency-Key) in the {@link IdempotencyStore} and goes on;
 *       while it streams, the edge digests its body (SHA-256) and records the upstream's final status,
 *       end-to-end header fields and body, up to {@code max-response-bytes} (a larger answer is
 *       recorded as not replayable). It keeps reading the upstream's answer if the client leaves after
 *       the whole request was sent, so a client that timed out finds the answer on its retry.</li>
 *   <li>Not recorded (the claim is abandoned, so a retry goes through): the request was rejected before
 *       the upstream (429, 503 shed, ...), never answered (unreachable, timeout, client gone before the
 *       request was sent whole), or the upstream said it did nothing: 408, 425, 429, 503.</li>
 *   <li>A retry with the same method, path and body digest gets the recorded answer with
 *       {@code Idempotent-Replayed: true}; another method, path or body gets 409
 *       {@code idempotency_conflict}; a retry while the first is in flight gets 409
 *       {@code idempotency_in_flight} with {@code Retry-After: 1}; a recorded answer that was too large
 *       gets 409 saying so.</li>
 * </ul>
 * A store that fails (a shared store unreachable) never fails the request: it is forwarded without a
 * record, and the failure is logged (at most 10 lines a minute). Thread-safe.
 */
public final class IdempotencyStage implements EdgeStage {

    /** The response field marking a replay. */
    public static final String REPLAYED_FIELD = "Idempotent-Replayed";
    /** The request field naming the key (draft-ietf-httpapi-idempotency-key-header). */
    public static final String KEY_FIELD = "Idempotency-Key";

    private static final Set<String> SAFE_METHODS = Set.of("GET", "HEAD", "OPTIONS", "TRACE");
    /** Upstream statuses that say the request was not carried out: a retry must reach the upstream again. */
    private static final Set<Integer> NOT_DONE = Set.of(408, 425, 429, 503);
    /** Not replayed: hop-by-hop fields, the framing, the date, and the edge's own fields (computed afresh). */
    private static final Set<String> NOT_RECORDED = Set.of("connection", "keep-alive", "transfer-encoding", "te",
            "trailer", "upgrade", "proxy-connection", "proxy-authenticate", "content-length", "date",
            "ratelimit", "ratelimit-policy", "ratelimit-warning", "idempotent-replayed");

    private final IdempotencyConfig config;
    private final IdempotencyStore store;
    private final Supplier<Problems> problems;
    private final Duration lease;
    private final ThrottledLog log;

    /**
     * @param lease the in-flight marker lifetime (the edge passes the configured one or its upstream
     *     timeouts plus 5 s)
     */
    public IdempotencyStage(IdempotencyConfig config, IdempotencyStore store, Duration lease, TimeSource time,
            Supplier<Problems> problems) {
        this.config = config;
        this.store = store;
        this.lease = lease;
        this.problems = problems;
        this.log = new ThrottledLog(LoggerFactory.getLogger(IdempotencyStage.class), time, 10);
    }

    @Override
    public CompletionStage<Verdict> apply(EdgeRequest request, Chain chain) {
        if (!(request.caller() instanceof Caller.ApiKey apiKey)) {
            return chain.proceed(request);
        }
        List<String> lines = request.head().idempotencyKey();
        boolean required = request.route().idempotencyRequired();
        if (lines.isEmpty()) {
            return required
                    ? answer(request, problems.get().plain(400, "idempotency_key_required", "Idempotency-Key required",
                            "This route changes state: send an Idempotency-Key (the same one on every retry)."),
                            DecisionOutcome.BAD_REQUEST)
                    : chain.proceed(request);
        }
        if (!required && SAFE_METHODS.contains(request.head().method())) {
            return chain.proceed(request);
        }
        String value = lines.size() == 1 ? unquote(lines.get(0).strip()) : null;
        String problem = value == null ? "must be sent once" : IdempotencyKey.problemWith(value);
        if (problem != null) {
            return answer(request, problems.get().plain(400, "bad_request", "Bad request",
                    "Idempotency-Key " + problem + "."), DecisionOutcome.BAD_REQUEST);
        }
        IdempotencyKey key = new IdempotencyKey(apiKey.limiterKey(), value);
        RequestTarget target = new RequestTarget(request.head().method(), request.head().path());
        CompletionStage<Claim> claim;
        try {
            claim = store.beginAsync(key, target, lease);
        } catch (RuntimeException e) {
            claim = CompletableFuture.failedFuture(e);
        }
        return claim.handle((c, error) -> c != null ? c : storeFailed(error)).thenCompose(c -> switch (c) {
            case null -> chain.proceed(request);
            case Claim.Acquired a -> proceedRecording(request, chain, key, a.token(), target);
            case Claim.InFlight f -> answer(request, problems.get().idempotencyConflict(true,
                    "A request with this Idempotency-Key is still in progress; retry in a second."),
                    DecisionOutcome.IDEMPOTENCY_CONFLICT);
            case Claim.Conflict x -> answer(request, problems.get().idempotencyConflict(false,
                    "This Idempotency-Key was used for " + x.recorded() + "; use a new key for a new request."),
                    DecisionOutcome.IDEMPOTENCY_CONFLICT);
            case Claim.Completed done -> CompletableFuture.completedFuture(replay(request, done));
        });
    }

    private Claim storeFailed(Throwable error) {
        Throwable cause = error instanceof CompletionException ce && ce.getCause() != null ? ce.getCause() : error;
        log.warn("idempotency store failed; forwarding without a record: {}", cause.toString());
        return null;
    }

    private CompletionStage<Verdict> proceedRecording(EdgeRequest request, Chain chain, IdempotencyKey key,
            String token, RequestTarget target) {
        CompletionStage<Verdict> next;
        try {
            next = chain.proceed(request);
        } catch (RuntimeException e) {
            abandon(key, token);
            throw e;
        }
        return next.handle((v, error) -> {
            if (v instanceof Verdict.Forward f) {
                return f.withListener(new Recorder(key, token, target));
            }
            abandon(key, token); // rejected before the upstream: a retry may go through
            if (error != null) {
                throw error instanceof RuntimeException re ? re : new CompletionException(error);
            }
            return v;
        });
    }

    private Verdict replay(EdgeRequest request, Claim.Completed done) {
        DecisionRecord conflictRecord = record(request, DecisionOutcome.IDEMPOTENCY_CONFLICT);
        EdgeResponse conflict = problems.get().idempotencyConflict(false,
                "This Idempotency-Key was used with a different request body; use a new key for a new request.");
        return switch (done.response()) {
            case RecordedResponse.NotReplayable n -> new Verdict.Answer(problems.get().idempotencyConflict(false,
                    "The request with this Idempotency-Key was carried out (status " + n.status()
                            + "), but its answer was not kept: " + n.reason() + "."), conflictRecord);
            case RecordedResponse.Replayable r -> {
                List<Header> headers = new ArrayList<>(r.fields().size() + 1);
                r.fields().forEach(f -> headers.add(new Header(f.name(), f.value())));
                headers.add(new Header(REPLAYED_FIELD, "true"));
                EdgeResponse replay = new EdgeResponse(r.status(), headers, r.body());
                DecisionRecord replayed = record(request, DecisionOutcome.REPLAYED);
                String sha = done.fingerprint().bodySha256();
                if (!request.head().bodyExpected()) {
                    yield sha.equals(RequestFingerprint.EMPTY_BODY_SHA256)
                            ? new Verdict.Answer(replay, replayed) : new Verdict.Answer(conflict, conflictRecord);
                }
                yield new Verdict.Replay(sha, replay, replayed, conflict, conflictRecord);
            }
        };
    }

    private void abandon(IdempotencyKey key, String token) {
        try {
            store.abandonAsync(key, token).exceptionally(e -> {
                log.warn("idempotency store failed to abandon a claim: {}", e.toString());
                return false;
            });
        } catch (RuntimeException e) {
            log.warn("idempotency store failed to abandon a claim: {}", e.toString());
        }
    }

    private static CompletionStage<Verdict> answer(EdgeRequest request, EdgeResponse response, DecisionOutcome outcome) {
        return CompletableFuture.completedFuture(new Verdict.Answer(response, record(request, outcome)));
    }

    private static DecisionRecord record(EdgeRequest request, DecisionOutcome outcome) {
        return new DecisionRecord(request.route().id(), request.keyClass(), outcome, false);
    }

    /** An sf-string key ({@code "abc"}, as the draft writes it) or a bare token. */
    private static String unquote(String v) {
        if (v.length() >= 2 && v.charAt(0) == '"' && v.charAt(v.length() - 1) == '"') {
            return v.substring(1, v.length() - 1);
        }
        return v;
    }

    /** Digests the request body and keeps the upstream's answer, then completes or abandons the claim. */
    private final class Recorder implements BodyTap {
        private final IdempotencyKey key;
        private final String token;
        private final RequestTarget target;
        private final MessageDigest digest = sha256();
        private String bodySha256;
        private int status;
        private List<RecordedResponse.Field> fields;
        private ByteArrayOutputStream body = new ByteArrayOutputStream();
        private long responseBytes;
        private boolean settled;

        Recorder(IdempotencyKey key, String token, RequestTarget target) {
            this.key = key;
            this.token = token;
            this.target = target;
        }

        @Override
        public void onRequestBody(ByteBuffer chunk) {
            digest.update(chunk);
        }

        @Override
        public void onRequestComplete() {
            bodySha256 = java.util.HexFormat.of().formatHex(digest.digest());
        }

        @Override
        public void onResponseHead(int status, List<Map.Entry<String, String>> headerFields) {
            this.status = status;
            List<RecordedResponse.Field> kept = new ArrayList<>(headerFields.size());
            for (Map.Entry<String, String> e : headerFields) {
                if (!NOT_RECORDED.contains(e.getKey().toLowerCase(Locale.ROOT))) {
                    kept.add(new RecordedResponse.Field(e.getKey(), e.getValue()));
                }
            }
            this.fields = kept;
        }

        @Override
        public void onResponseBody(ByteBuffer chunk) {
            responseBytes += chunk.remaining();
            if (body != null && responseBytes <= config.maxResponseBytes()) {
                byte[] b = new byte[chunk.remaining()];
                chunk.get(b);
                body.writeBytes(b);
            } else {
                body = null; // over the bound: keep the fact, not the bytes
            }
        }

        @Override
        public void onResponseComplete() {
            if (settled || bodySha256 == null || fields == null) {
                return;
            }
            settled = true;
            if (NOT_DONE.contains(status) || status < 200) {
                abandon(key, token);
                return;
            }
            RecordedResponse answer = body != null
                    ? new RecordedResponse.Replayable(status, fields, body.toByteArray())
                    : new RecordedResponse.NotReplayable(status, "the response body exceeded "
                            + config.maxResponseBytes() + " bytes");
            RequestFingerprint fingerprint = new RequestFingerprint(target, bodySha256);
            try {
                store.completeAsync(key, token, fingerprint, answer, config.retention()).exceptionally(e -> {
                    log.warn("idempotency store failed to record an answer: {}", e.toString());
                    return false;
                });
            } catch (RuntimeException e) {
                log.warn("idempotency store failed to record an answer: {}", e.toString());
            }
        }

        @Override
        public void onEnd(boolean completed) {
            if (!settled) {
                settled = true;
                abandon(key, token);
            }
        }

        @Override
        public boolean finishWithoutClient() {
            return true;
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

}
