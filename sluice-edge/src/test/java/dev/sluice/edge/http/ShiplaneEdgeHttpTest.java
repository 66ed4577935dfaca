package dev.sluice.edge.http;

import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.edge.testing.TestUpstream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fixture of the edge's HTTP tests: a fresh {@link TestUpstream} and an edge with the Shiplane
 * configuration ({@link Edges#SHIPLANE}, fake clock at 2026-11-30T12:00:00Z) for every test, both closed
 * after it, and no leaked Netty buffers once the class is done ({@link NoLeaks}).
 */
@ExtendWith(NoLeaks.class)
abstract class ShiplaneEdgeHttpTest {

    @AutoClose
    protected final TestUpstream upstream = new TestUpstream();
    @AutoClose
    protected final Edges edge = Edges.start(Edges.SHIPLANE, upstream, "2026-11-30T12:00:00Z");
}
