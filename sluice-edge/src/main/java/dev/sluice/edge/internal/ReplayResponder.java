package dev.sluice.edge.internal;

import dev.sluice.edge.decision.DecisionRecord;
import dev.sluice.edge.decision.Verdict;
import dev.sluice.edge.response.EdgeResponse;
import io.netty.handler.codec.http.HttpContent;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The answer to a request whose {@code Idempotency-Key} has a recorded answer (SPEC §3.11): the request's body is
 * hashed as it arrives, never forwarded, and once it is complete the recorded answer is replayed when the body's
 * SHA-256 is the recorded one, else the 409 {@code idempotency_conflict} is written.
 *
 * <p>Buffers: {@link #take} releases every body part it is given. One request; the client channel's event loop
 * only.
 */
final class ReplayResponder {

    /** The answer chosen and what is counted for it. */
    record Answer(EdgeResponse response, DecisionRecord record) {
    }

    private final Verdict.Replay replay;
    private final MessageDigest digest = sha256();

    ReplayResponder(Verdict.Replay replay) {
        this.replay = replay;
    }

    /** Hashes a part of the request's body, then releases it. */
    void take(HttpContent part) {
        try {
            if (part.content().isReadable()) {
                digest.update(part.content().nioBuffer());
            }
        } finally {
            part.release();
        }
    }

    /**
     * The answer once the whole body was taken: the recorded one when the body's SHA-256 (lower-case hex, as
     * recorded) matches, else the conflict. Call once.
     */
    Answer finish() {
        boolean same = HexFormat.of().formatHex(digest.digest()).equals(replay.bodySha256());
        return same ? new Answer(replay.replay(), replay.record())
                : new Answer(replay.conflict(), replay.conflictRecord());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
