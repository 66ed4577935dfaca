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
import java.util.concurrent.ConcurrentHashMap;
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
 *   <li>A retry with the same method, path, query and body digest gets the recorded answer with
 *       {@code Idempotent-Replayed: true}; another method, path, query or body gets 409
 *       {@code idempotency_conflict}; a retry while the first is in flight gets 409
 *       {@code idempotency_in_flight} with {@code Retry-After: 1}; a recorded answer that was too large
 *       gets 409 saying so.</li>
 * </ul>
 * <p><b>A store that cannot be reached</b> (a shared Redis down; failures logged at most 10 lines a minute).
 * A request with an {@code Idempotency-Key} is not forwarded blindly, as a retry of a request already carried
 * out would be carried out again: it gets 503 {@code idempotency_store_unavailable} with
 * {@code unavailable-retry-after} (charged to nothing), or, with {@code on-store-unavailable: forward}, goes
 * on without a record. Claims this edge holds are known here too, so they are still answered right: a
 * duplicate of one in flight gets 409 {@code idempotency_in_flight}, a retry of one whose answer could not
 * be written gets that answer replayed; and the write (the answer, or giving the claim back) is retried
 * when the store answers again: before the next request with the same key, and at most once a second on
 * any request through the stage. A claim whose answer is not written before its lease ends in the store
 * (a shared store down longer than {@code lease}) is lost there: another replica may then carry out a
 * retry again. Entries kept here are bounded by the requests in flight when the store went away.
 *
 * <p>Thread-safe.
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
    private final TimeSource time;
    /** Claims this edge holds or could not write (SPEC §3.11 while the store cannot be reached). */
    private final ConcurrentHashMap<IdempotencyKey, Local> local = new ConcurrentHashMap<>();
    /** whether some write failed and waits in {@link #local} */
    private volatile boolean unwritten;
    private volatile long nextRetryNanos;

    /** What this edge knows of one of its claims. */
    private sealed interface Local {
        String token();

        RequestTarget target();
    }

    /** Acquired here and not ended. */
    private record InFlightHere(String token, RequestTarget target) implements Local {
    }

    /** Ended with an answer the store did not take yet. */
    private record Unsaved(String token, RequestTarget target, RequestFingerprint fingerprint,
            RecordedResponse response) implements Local {
    }

    /** Ended without an answer worth keeping; the store did not take the give-back yet. */
    private record Unabandoned(String token, RequestTarget target) implements Local {
    }

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
        this.time = time;
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
        // the query is part of the request (SPEC §3.11): ?carrier=ups and ?carrier=dhl are two labels
        RequestTarget target = new RequestTarget(request.head().method(), request.head().target());
        retryUnwritten();
        Local mine = local.get(key);
        CompletionStage<Void> before = mine instanceof Unsaved || mine instanceof Unabandoned
                ? write(key, mine) : CompletableFuture.completedFuture(null);
        CompletionStage<Claim> claim = before.thenCompose(x -> {
            try {
                return store.beginAsync(key, target, lease);
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        });
        return claim.handle((c, error) -> c != null ? onClaim(request, chain, key, target, c)
                : storeFailed(request, chain, key, target, error)).thenCompose(v -> v);
    }

    private CompletionStage<Verdict> onClaim(EdgeRequest request, Chain chain, IdempotencyKey key,
            RequestTarget target, Claim c) {
        return switch (c) {
            case Claim.Acquired a -> proceedRecording(request, chain, key, a.token(), target);
            case Claim.InFlight f -> answer(request, problems.get().idempotencyConflict(true,
                    "A request with this Idempotency-Key is still in progress; retry in a second."),
                    DecisionOutcome.IDEMPOTENCY_CONFLICT);
            case Claim.Conflict x -> answer(request, problems.get().idempotencyConflict(false,
                    "This Idempotency-Key was used for " + x.recorded() + "; use a new key for a new request."),
                    DecisionOutcome.IDEMPOTENCY_CONFLICT);
            case Claim.Completed done -> CompletableFuture.completedFuture(replay(request, done));
        };
    }

    /**
     * The store could not be reached: a claim of this edge is answered from what it knows; any other request
     * is refused with 503 (or forwarded without a record, when configured so).
     */
    private CompletionStage<Verdict> storeFailed(EdgeRequest request, Chain chain, IdempotencyKey key,
            RequestTarget target, Throwable error) {
        Throwable cause = error instanceof CompletionException ce && ce.getCause() != null ? ce.getCause() : error;
        Local here = local.get(key);
        if (here instanceof InFlightHere || here instanceof Unsaved) {
            log.warn(cause, "idempotency store failed; answering from this edge's own claim");
            if (!here.target().equals(target)) {
                return onClaim(request, chain, key, target, new Claim.Conflict(here.target()));
            }
            return onClaim(request, chain, key, target, here instanceof Unsaved u
                    ? new Claim.Completed(u.fingerprint(), u.response()) : new Claim.InFlight(target));
        }
        if (config.onStoreUnavailable() == IdempotencyConfig.OnStoreUnavailable.FORWARD) {
            log.warn(cause, "idempotency store failed; forwarding without a record (on-store-unavailable: forward)");
            return chain.proceed(request);
        }
        log.warn(cause, "idempotency store failed; answering 503 idempotency_store_unavailable");
        return answer(request, problems.get().idempotencyStoreUnavailable(config.unavailableRetryAfter()),
                DecisionOutcome.UNAVAILABLE);
    }

    /**
     * Writes what {@code pending} holds to the store (its answer, or the claim given back); forgets it once the
     * store took it (or said the claim is no longer this one), keeps it for a later try otherwise. Never fails.
     */
    private CompletionStage<Void> write(IdempotencyKey key, Local pending) {
        CompletionStage<Boolean> op;
        try {
            op = switch (pending) {
                case Unsaved u -> store.completeAsync(key, u.token(), u.fingerprint(), u.response(),
                        config.retention());
                case Unabandoned a -> store.abandonAsync(key, a.token());
                case InFlightHere f -> CompletableFuture.completedFuture(true);
            };
        } catch (RuntimeException e) {
            op = CompletableFuture.failedFuture(e);
        }
        return op.handle((done, error) -> {
            if (error == null) {
                local.remove(key, pending);
            } else {
                unwritten = true;
                log.warn(error, "idempotency store failed to {}; kept on this edge to retry",
                        pending instanceof Unsaved ? "record an answer" : "abandon a claim");
            }
            return null;
        });
    }

    /** At most once a second, retries the writes that failed (the store may be back). */
    private void retryUnwritten() {
        if (!unwritten) {
            return;
        }
        long now = time.nanoTime();
        if (now - nextRetryNanos < 0) {
            return;
        }
        nextRetryNanos = now + 1_000_000_000L;
        unwritten = false;
        local.forEach((key, l) -> {
            if (!(l instanceof InFlightHere)) {
                write(key, l);
            }
        });
    }

    /** Replaces this edge's entry of {@code key} by {@code next} if it is still the claim named by its token. */
    private void settle(IdempotencyKey key, Local next) {
        Local[] kept = new Local[1];
        local.compute(key, (k, cur) -> {
            Local v = cur == null || cur.token().equals(next.token()) ? next : cur;
            kept[0] = v;
            return v;
        });
        if (kept[0] == next) {
            write(key, next);
        }
    }

    private CompletionStage<Verdict> proceedRecording(EdgeRequest request, Chain chain, IdempotencyKey key,
            String token, RequestTarget target) {
        local.put(key, new InFlightHere(token, target));
        CompletionStage<Verdict> next;
        try {
            next = chain.proceed(request);
        } catch (RuntimeException e) {
            abandon(key, token, target);
            throw e;
        }
        return next.handle((v, error) -> {
            if (v instanceof Verdict.Forward f) {
                return f.withListener(new Recorder(key, token, target));
            }
            abandon(key, token, target); // rejected before the upstream: a retry may go through
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

    private void abandon(IdempotencyKey key, String token, RequestTarget target) {
        settle(key, new Unabandoned(token, target));
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
                abandon(key, token, target);
                return;
            }
            RecordedResponse answer = body != null
                    ? new RecordedResponse.Replayable(status, fields, body.toByteArray())
                    : new RecordedResponse.NotReplayable(status, "the response body exceeded "
                            + config.maxResponseBytes() + " bytes");
            RequestFingerprint fingerprint = new RequestFingerprint(target, bodySha256);
            settle(key, new Unsaved(token, target, fingerprint, answer));
        }

        @Override
        public void onEnd(boolean completed) {
            if (!settled) {
                settled = true;
                abandon(key, token, target);
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
