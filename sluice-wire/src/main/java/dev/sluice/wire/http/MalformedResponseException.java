package dev.sluice.wire.http;

/**
 * Thrown by {@link RawHttpResponse#parse(byte[])} when text is not an HTTP response; the message
 * names the offending line.
 */
public final class MalformedResponseException extends IllegalArgumentException {

    public MalformedResponseException(String message) {
        super(message);
    }
}
