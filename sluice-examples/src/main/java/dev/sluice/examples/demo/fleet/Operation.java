package dev.sluice.examples.demo.fleet;

/** What a virtual client asks Shiplane for, through the edge. */
public enum Operation {
    /** {@code POST /v1/labels}: buy one label (a write; carries an Idempotency-Key). */
    BUY_LABEL("POST", "/v1/labels", true),
    /** {@code GET /v1/quotes}: price a shipment (cheap, sheddable). */
    QUOTE("GET", "/v1/quotes", false),
    /** {@code POST /v1/labels:batch}: buy ten labels (route cost 10). */
    BUY_BATCH("POST", "/v1/labels:batch", true);

    private final String method;
    private final String path;
    private final boolean write;

    Operation(String method, String path, boolean write) {
        this.method = method;
        this.path = path;
        this.write = write;
    }

    public String method() {
        return method;
    }

    public String path() {
        return path;
    }

    /** Whether it changes state (and so carries an {@code Idempotency-Key}). */
    public boolean write() {
        return write;
    }
}
