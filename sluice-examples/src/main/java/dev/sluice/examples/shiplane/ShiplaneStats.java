package dev.sluice.examples.shiplane;

import java.util.Map;
import java.util.stream.Collectors;

/**
 * Counters of a {@link ShiplaneServer} since it started.
 *
 * @param requests {@code /v1/*} requests received (any route, any answer)
 * @param labelsCreated labels bought (a batch buys {@link ShiplaneServer#BATCH_SIZE})
 * @param duplicateLabels labels bought for an order that had one already: by a request whose body's
 *     {@code "reference"} had bought one, or, without a reference, whose {@code Idempotency-Key} had —
 *     a retried write that reached Shiplane twice. 0 is the goal of the layers in front
 * @param unavailable requests answered 503 because of a blip
 * @param slow requests a blip served slowly instead ({@link ShiplaneConfig#blipSlowShare()})
 * @param blip whether a blip is on now
 * @param requestsByRoute requests per {@code "METHOD /path"} of a known route, blipped ones included
 */
public record ShiplaneStats(long requests, long labelsCreated, long duplicateLabels, long unavailable, long slow,
        boolean blip, Map<String, Long> requestsByRoute) {

    /** These counters as one JSON object (the body of {@code GET /_shiplane/stats}). */
    public String toJson() {
        String routes = requestsByRoute.entrySet().stream()
                .map(e -> "\"" + ShiplaneServer.jsonEscape(e.getKey()) + "\":" + e.getValue())
                .collect(Collectors.joining(","));
        return "{\"requests\":" + requests + ",\"labels_created\":" + labelsCreated
                + ",\"duplicate_labels\":" + duplicateLabels + ",\"unavailable\":" + unavailable + ",\"slow\":" + slow
                + ",\"blip\":" + blip + ",\"requests_by_route\":{" + routes + "}}";
    }
}
