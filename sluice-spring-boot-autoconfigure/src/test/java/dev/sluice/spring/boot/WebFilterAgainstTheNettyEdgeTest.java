package dev.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.spring.boot.app.TestShiplane;
import dev.sluice.spring.boot.reactive.SluiceWebFilter;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The WebFlux {@code WebFilter} on Reactor Netty (the same controllers, as a reactive application):
 * the contract assertions of {@link ServerSideAgainstTheNettyEdge}.
 */
@SpringBootTest(classes = {TestShiplane.class, ServerSideAgainstTheNettyEdge.Clock.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "spring.main.web-application-type=reactive")
@DirtiesContext
class WebFilterAgainstTheNettyEdgeTest extends ServerSideAgainstTheNettyEdge {

    @Autowired
    WebServerApplicationContext context;

    @Test
    void theApplicationRunsOnReactorNettyWithTheWebFilterAndNoServletFilter() {
        assertThat(context.getWebServer().getClass().getSimpleName()).isEqualTo("NettyWebServer");
        assertThat(context.getBeansOfType(SluiceWebFilter.class)).hasSize(1);
        assertThat(context.getBeanNamesForType(dev.sluice.spring.boot.servlet.SluiceServletFilter.class)).isEmpty();
    }
}
