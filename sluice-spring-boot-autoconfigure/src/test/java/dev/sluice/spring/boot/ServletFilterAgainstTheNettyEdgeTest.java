package dev.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.spring.boot.app.TestShiplane;
import dev.sluice.spring.boot.servlet.SluiceServletFilter;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.test.annotation.DirtiesContext;

/** The Servlet filter on embedded Tomcat: the contract assertions of {@link ServerSideAgainstTheNettyEdge}. */
@SpringBootTest(classes = {TestShiplane.class, ServerSideAgainstTheNettyEdge.Clock.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class ServletFilterAgainstTheNettyEdgeTest extends ServerSideAgainstTheNettyEdge {

    @Autowired
    WebServerApplicationContext context;

    @Test
    void theApplicationRunsOnTomcatWithTheServletFilterAndNoWebFilter() {
        assertThat(context.getWebServer().getClass().getSimpleName()).isEqualTo("TomcatWebServer");
        assertThat(context.getBeansOfType(SluiceServletFilter.class)).hasSize(1);
        assertThat(context.getBeanNamesForType(dev.sluice.spring.boot.reactive.SluiceWebFilter.class)).isEmpty();
    }
}
