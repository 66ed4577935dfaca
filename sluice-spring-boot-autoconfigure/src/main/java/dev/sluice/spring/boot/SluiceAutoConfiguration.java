package dev.sluice.spring.boot;

import dev.sluice.client.core.CoreEnvironment;
import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.config.StoreConfig;
import dev.sluice.edge.decision.ProtectedDecider;
import dev.sluice.edge.metrics.EdgeMetrics;
import dev.sluice.edge.shedding.CriticalityShedder;
import dev.sluice.edge.softlimit.LoggingQuotaWarningSink;
import dev.sluice.edge.softlimit.QuotaWarningSink;
import dev.sluice.edge.softlimit.SoftLimitNotifier;
import dev.sluice.limiter.idempotency.IdempotencyStore;
import dev.sluice.limiter.idempotency.InMemoryIdempotencyStore;
import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.spring.boot.client.SluiceRestClients;
import dev.sluice.spring.boot.servlet.KeyResolver;
import dev.sluice.spring.boot.servlet.SluiceServletFilter;
import dev.sluice.time.TimeSource;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.web.client.RestClient;

/**
 * Sluice in a Spring Boot application:
 * <ul>
 *   <li><b>server side</b>, when {@code sluice.plans} is configured in a Servlet application: the
 *       edge's decision ({@link ProtectedDecider}, the code the Netty edge runs) as a filter in front
 *       of the application's handlers, configured with the edge's schema under {@code sluice.*};</li>
 *   <li><b>client side</b>, when {@code sluice.clients.<name>} is configured and {@code RestClient}
 *       is on the class path: {@link SluiceRestClients}, one SDK core per named API.</li>
 * </ul>
 * Metrics go to the application's {@link MeterRegistry} (Actuator shows them).
 */
@AutoConfiguration
@ConditionalOnProperty(prefix = "sluice", name = "enabled", havingValue = "true", matchIfMissing = true)
public class SluiceAutoConfiguration {

    /** The filter's place in the chain: early, before the application's own filters do work. */
    public static final int FILTER_ORDER = Ordered.HIGHEST_PRECEDENCE + 100;

    /** Servlet workers the shedder's default limit is derived from (Tomcat's default maximum). */
    static final int SERVLET_CAPACITY = 200;

    /** Request bodies read whole on a route that honours Idempotency-Key, at most. */
    static final int MAX_BUFFERED_BODY_BYTES = 1 << 20;

    /** On when {@code sluice.plans} has at least one plan. */
    static final class OnPlans implements Condition {
        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return context.getEnvironment() instanceof ConfigurableEnvironment env && SluiceConfigSource.hasPlans(env);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(name = "jakarta.servlet.Filter")
    @Conditional(OnPlans.class)
    static class ServerSide {

        /** The limiter's clock; a test declares a {@code ManualTimeSource} bean instead. */
        @Bean
        @ConditionalOnMissingBean
        TimeSource sluiceTimeSource() {
            return TimeSource.system();
        }

        @Bean
        @ConditionalOnMissingBean
        EdgeConfig sluiceEdgeConfig(ConfigurableEnvironment environment) {
            return SluiceConfigSource.load(environment);
        }

        @Bean
        @ConditionalOnMissingBean
        LimiterStore sluiceLimiterStore(EdgeConfig config, TimeSource time) {
            if (config.store() instanceof StoreConfig.Redis redis) {
                throw new IllegalStateException("sluice.store: " + redis.maskedUrl() + " is a shared Redis store, "
                        + "which the starter does not build: declare a LimiterStore bean (sluice-redis: RedisLimiterStore)");
            }
            return new InMemoryLimiterStore(time);
        }

        @Bean
        @ConditionalOnMissingBean
        IdempotencyStore sluiceIdempotencyStore(TimeSource time) {
            return new InMemoryIdempotencyStore(time);
        }

        @Bean
        ProtectedDecider sluiceDecider(EdgeConfig config, LimiterStore store, IdempotencyStore idempotency,
                ObjectProvider<MeterRegistry> registry, TimeSource time) {
            config.validatePlans(store::validate);
            ProtectedDecider d = ProtectedDecider.assemble(config, store, idempotency, time,
                    SERVLET_CAPACITY, Duration.ofSeconds(65), List.of());
            MeterRegistry r = registry.getIfAvailable(SimpleMeterRegistry::new);
            Gauge.builder("sluice.edge.shedder.limit", d.shedder(), CriticalityShedder::limit)
                    .description("The shedder's concurrency limit (static or adaptive)").register(r);
            Gauge.builder("sluice.edge.shedder.in.flight", d.shedder(), CriticalityShedder::inFlight)
                    .description("Requests past the shedder and not yet ended").register(r);
            return d;
        }

        @Bean
        SluiceServletFilter sluiceServletFilter(ProtectedDecider decider, ObjectProvider<KeyResolver> resolver,
                ObjectProvider<MeterRegistry> registry, ObjectProvider<QuotaWarningSink> sink,
                ConfigurableEnvironment environment, TimeSource time) {
            String header = environment.getProperty("sluice.key-header");
            KeyResolver keys = resolver.getIfAvailable(() -> header == null || header.isBlank() ? null
                    : request -> request.getHeader(header));
            return new SluiceServletFilter(decider.decider(), keys,
                    new EdgeMetrics(registry.getIfAvailable(SimpleMeterRegistry::new)),
                    new SoftLimitNotifier(sink.getIfAvailable(LoggingQuotaWarningSink::new)), time,
                    MAX_BUFFERED_BODY_BYTES, FILTER_ORDER);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({RestClient.class, org.springframework.boot.restclient.RestClientCustomizer.class})
    static class ClientSide {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        SluiceRestClients sluiceRestClients(ConfigurableEnvironment environment,
                ObjectProvider<RestClient.Builder> builders) {
            Map<String, SluiceClientProperties> apis = Binder.get(environment)
                    .bind("sluice.clients", Bindable.mapOf(String.class, SluiceClientProperties.class))
                    .orElse(Map.of());
            return new SluiceRestClients(apis, builders, CoreEnvironment.system());
        }
    }
}
