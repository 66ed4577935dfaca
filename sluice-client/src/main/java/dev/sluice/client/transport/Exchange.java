package dev.sluice.client.transport;

import dev.sluice.client.core.Answer;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * How a {@link CallDriver} reads one transport's results: a response becomes the core's
 * {@link Answer.Response}, an exception its {@link Answer.Failure}, and a response that will not be
 * returned (it is retried, or the call fails) is released. An adapter implements it once per
 * transport type; see {@link ResponseAnswers} and {@link TransportFailures} for the common parts.
 *
 * @param <R> the transport's response type
 */
public interface Exchange<R> {

    /**
     * Reads a response into the core's answer (status, fields, the error body when there is one).
     * Must not consume a body the caller will read: an adapter peeks or buffers error bodies.
     */
    Answer.Response read(R response);

    /**
     * How far a failed attempt got, or {@code null} when {@code error} is not an I/O failure of the
     * exchange (then it ends the call as it is). The default is {@link TransportFailures#of}.
     */
    default Answer.@Nullable Failure failure(Throwable error) {
        return TransportFailures.of(error);
    }

    /** Releases a response that the caller will never see (closes its body). Must not throw. */
    void discard(R response);

    /**
     * An exchange from its two parts, with the default {@link #failure}.
     *
     * @param read what {@link #read} does
     * @param discard what {@link #discard} does; must not throw
     * @throws NullPointerException if either is null
     */
    static <R> Exchange<R> of(Function<? super R, Answer.Response> read, Consumer<? super R> discard) {
        Objects.requireNonNull(read, "read");
        Objects.requireNonNull(discard, "discard");
        return new Exchange<>() {
            @Override
            public Answer.Response read(R response) {
                return read.apply(response);
            }

            @Override
            public void discard(R response) {
                discard.accept(response);
            }
        };
    }
}
