package dev.sluice.examples.demo;

import dev.sluice.examples.demo.fleet.Tenancy;
import java.io.IOException;
import java.net.URI;
import java.util.List;

/** The edge as the demo runs it: started in front of Shiplane, with the fleet's keys bound. */
public interface DemoEdge extends AutoCloseable {

    /** Where the fleet sends its calls ({@code http://127.0.0.1:PORT}). */
    URI baseUri();

    /** One line for the setup block: its configuration and where its metrics are. */
    String description();

    /** One line on what the edge saw, for the end of the run (printed and put in the report). */
    default String summary() {
        return "";
    }

    /**
     * The fleet's limit in units per second: the sum over its keys of each key's sustained burst rate
     * ({@code q/w}); 0 when unknown.
     */
    default double limitPerSecond() {
        return 0;
    }

    /** Requests the edge answered itself as part of a retry loop (SPEC §3.12) so far. */
    default long escalated() {
        return 0;
    }

    /** Stops the edge. */
    @Override
    void close();

    /** Starts an edge. */
    @FunctionalInterface
    interface Starter {
        /**
         * Starts the edge of {@code settings} in front of {@code upstream}, with the keys of
         * {@code groups} bound to their plans.
         *
         * @throws IOException if it cannot listen
         */
        DemoEdge start(DemoSettings settings, URI upstream, List<Tenancy> groups) throws IOException;
    }
}
