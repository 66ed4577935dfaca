package dev.sluice.edge.http;

import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.LeakWatch;
import dev.sluice.edge.testing.TestUpstream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The fixture of the edge's HTTP tests: a fresh {@link TestUpstream} and an edge with the Shiplane
 * configuration ({@link Edges#SHIPLANE}, fake clock at 2026-11-30T12:00:00Z) for every test, both closed
 * after it, and no leaked Netty buffers once the class is done.
 */
abstract class ShiplaneEdgeHttpTest {

    protected TestUpstream upstream;
    protected Edges edge;

    @BeforeEach
    void startEdge() {
        upstream = new TestUpstream();
        edge = Edges.start(Edges.SHIPLANE, upstream, "2026-11-30T12:00:00Z");
    }

    @AfterEach
    void stopEdge() {
        edge.close();
        upstream.close();
    }

    @AfterAll
    static void noLeaks() {
        LeakWatch.assertNoLeaks();
    }
}
