package dev.sluice.examples.demo.fleet;

import dev.sluice.examples.ForwardingHttpClient;
import dev.sluice.examples.demo.series.Series;
import dev.sluice.examples.demo.series.SeriesRecorder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * An {@link HttpClient} that passes every request to another one and counts each attempt on the
 * wire into a {@link SeriesRecorder}: offered when sent, then exactly one outcome. It sits under
 * whatever client the fleet uses (the plain retry loop or the SDK), so the table counts what really
 * crossed the network, retries included, whichever client made them.
 *
 * <p>A 429's outcome needs its problem body; the tap copies up to {@value #MAX_COPIED_BYTES} bytes
 * of a 429 body on its way to the caller's body handler, which still receives all of it. Other
 * outcomes are known from the status line. An attempt whose {@value Fleet#CALL_HEADER} names a call
 * the tap has seen before is also counted as a retry ({@link Series#RETRIES}), so retries are
 * counted on the wire too, whichever client made them; {@link #forget(String)} drops a call that
 * ended. Thread-safe.
 */
final class WireTap extends ForwardingHttpClient {

    static final int MAX_COPIED_BYTES = 16 * 1024;

    private final SeriesRecorder recorder;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final java.util.Set<String> callsSeen = java.util.concurrent.ConcurrentHashMap.newKeySet();

    WireTap(HttpClient delegate, SeriesRecorder recorder) {
        super(delegate);
        this.recorder = Objects.requireNonNull(recorder, "recorder");
    }

    /** Forgets the call {@code callId} (it ended: no attempt of it follows). */
    void forget(String callId) {
        callsSeen.remove(callId);
    }

    /** Attempts sent and not answered yet. */
    int inFlight() {
        return inFlight.get();
    }

    @Override
    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws IOException, InterruptedException {
        Attempt attempt = new Attempt(request);
        try {
            HttpResponse<T> response = delegate.send(request, attempt.tap(handler));
            attempt.answered(AttemptOutcomes.of(response.statusCode(), null));
            return response;
        } finally {
            attempt.answered(Series.OTHER); // no-op when already answered
        }
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        return sendAsync(request, handler, null);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler,
            HttpResponse.PushPromiseHandler<T> pushPromiseHandler) {
        Attempt attempt = new Attempt(request);
        CompletableFuture<HttpResponse<T>> f;
        try {
            f = pushPromiseHandler == null ? delegate.sendAsync(request, attempt.tap(handler))
                    : delegate.sendAsync(request, attempt.tap(handler), pushPromiseHandler);
        } catch (RuntimeException e) {
            attempt.answered(Series.OTHER);
            throw e;
        }
        // the caller gets the delegate's own future, so that its cancel() reaches the exchange
        f.whenComplete((response, error) -> attempt.answered(
                response != null ? AttemptOutcomes.of(response.statusCode(), null) : Series.OTHER));
        return f;
    }

    /** One attempt: its second, and a flag so that it is answered exactly once. */
    private final class Attempt {
        final int second = recorder.attemptSent();
        final AtomicBoolean answered = new AtomicBoolean();

        Attempt(HttpRequest request) {
            inFlight.incrementAndGet();
            request.headers().firstValue(Fleet.CALL_HEADER).ifPresent(call -> {
                if (!callsSeen.add(call)) {
                    recorder.event(Series.RETRIES);
                }
            });
        }

        void answered(Series outcome) {
            if (answered.compareAndSet(false, true)) {
                recorder.attemptAnswered(second, outcome);
                inFlight.decrementAndGet();
            }
        }

        <T> HttpResponse.BodyHandler<T> tap(HttpResponse.BodyHandler<T> handler) {
            return info -> {
                HttpResponse.BodySubscriber<T> inner = handler.apply(info);
                if (info.statusCode() != 429) {
                    answered(AttemptOutcomes.of(info.statusCode(), null));
                    return inner;
                }
                return new Tee<>(inner, body -> answered(AttemptOutcomes.of(429, body)));
            };
        }
    }

    /** Forwards a body to {@code inner} and hands a copy of its first bytes to {@code done}. */
    private static final class Tee<T> implements HttpResponse.BodySubscriber<T> {
        private final HttpResponse.BodySubscriber<T> inner;
        private final Consumer<byte[]> done;
        private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

        Tee(HttpResponse.BodySubscriber<T> inner, Consumer<byte[]> done) {
            this.inner = inner;
            this.done = done;
        }

        @Override
        public CompletionStage<T> getBody() {
            return inner.getBody();
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            inner.onSubscribe(subscription);
        }

        @Override
        public void onNext(List<ByteBuffer> items) {
            for (ByteBuffer b : items) {
                ByteBuffer view = b.duplicate(); // leaves the caller's position alone
                int n = Math.min(view.remaining(), MAX_COPIED_BYTES - copy.size());
                if (n > 0) {
                    byte[] bytes = new byte[n];
                    view.get(bytes);
                    copy.writeBytes(bytes);
                }
            }
            inner.onNext(items);
        }

        @Override
        public void onError(Throwable throwable) {
            done.accept(copy.toByteArray());
            inner.onError(throwable);
        }

        @Override
        public void onComplete() {
            done.accept(copy.toByteArray());
            inner.onComplete();
        }
    }
}
