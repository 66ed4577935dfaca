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
import dev.sluice.spring.boot.client.SluiceApis;
import dev.sluice.spring.boot.client.SluiceRestClients;
import dev.sluice.spring.boot.client.SluiceWebClients;
import dev.sluice.spring.boot.reactive.ReactiveKeyResolver;
import dev.sluice.spring.boot.reactive.SluiceWebFilter;
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
 *   <li><b>server side</b>, when {@code sluice.plans} is configured in a web application: the
 *       edge's decision ({@link ProtectedDecider}, the code the Netty edge runs) in front of the
 *       application's handlers, configured with the edge's schema under {@code sluice.*}: a
 *       {@link SluiceServletFilter} in a Servlet application, a {@link SluiceWebFilter} in a
 *       WebFlux one;</li>
 *   <li><b>client side</b>, for each {@code sluice.clients.<name>}: {@link SluiceRestClients} when
 *       {@code RestClient} is on the class path and {@link SluiceWebClients} when {@code WebClient}
 *       is, one SDK core per named API and client kind.</li>
 * </ul>
 * Metrics go to the application's {@link MeterRegistry} (Actuator shows them).
 */
@AutoConfiguration
@ConditionalOnProperty(prefix = "sluice", name = "enabled", havingValue = "true", matchIfMissing = true)
public class SluiceAutoConfiguration {

    /** The filter's place in the chain: early, before the application's own filters do work. */
    public static final int FILTER_ORDER = Ordered.HIGHEST_PRECEDENCE + 100;

    /**
     * The concurrency the shedder's default limit is derived from: Tomcat's default maximum of worker
     * threads; a reactive server gets the same ceiling.
     */
    static final int SERVER_CAPACITY = 200;

    /** Request bodies read whole on a route that honours Idempotency-Key, at most. */
    static final int MAX_BUFFERED_BODY_BYTES = 1 << 20;

    /** On when {@code sluice.plans} has at least one plan. */
    static final class OnPlans implements Condition {
        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return context.getEnvironment() instanceof ConfigurableEnvironment env && SluiceConfigSource.hasPlans(env);
        }
    }

    /** The decision both server sides run: configuration, stores, clock, the edge's decider. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication
    @Conditional(OnPlans.class)
    static class Decision {

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
                    SERVER_CAPACITY, Duration.ofSeconds(65), List.of());
            MeterRegistry r = registry.getIfAvailable(SimpleMeterRegistry::new);
            Gauge.builder("sluice.edge.shedder.limit", d.shedder(), CriticalityShedder::limit)
                    .description("The shedder's concurrency limit (static or adaptive)").register(r);
            Gauge.builder("sluice.edge.shedder.in.flight", d.shedder(), CriticalityShedder::inFlight)
                    .description("Requests past the shedder and not yet ended").register(r);
            return d;
        }

        @Bean
        @ConditionalOnMissingBean
        EdgeMetrics sluiceEdgeMetrics(ObjectProvider<MeterRegistry> registry) {
            return new EdgeMetrics(registry.getIfAvailable(SimpleMeterRegistry::new));
        }

        @Bean
        @ConditionalOnMissingBean
        SoftLimitNotifier sluiceSoftLimitNotifier(ObjectProvider<QuotaWarningSink> sink) {
            return new SoftLimitNotifier(sink.getIfAvailable(LoggingQuotaWarningSink::new));
        }
    }

    /** The header named by {@code sluice.key-header}, or {@code null} for {@code Authorization: Bearer}. */
    static String keyHeader(ConfigurableEnvironment environment) {
        String header = environment.getProperty("sluice.key-header");
        return header == null || header.isBlank() ? null : header.trim();
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(name = "jakarta.servlet.Filter")
    @Conditional(OnPlans.class)
    static class ServletSide {

        @Bean
        SluiceServletFilter sluiceServletFilter(ProtectedDecider decider, ObjectProvider<KeyResolver> resolver,
                EdgeMetrics metrics, SoftLimitNotifier notifier, ConfigurableEnvironment environment, TimeSource time) {
            String header = keyHeader(environment);
            KeyResolver keys = resolver.getIfAvailable(() -> header == null ? null : request -> request.getHeader(header));
            return new SluiceServletFilter(decider.decider(), keys, metrics, notifier, time,
                    MAX_BUFFERED_BODY_BYTES, FILTER_ORDER);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    @ConditionalOnClass(name = "org.springframework.web.server.WebFilter")
    @Conditional(OnPlans.class)
    static class ReactiveSide {

        @Bean
        SluiceWebFilter sluiceWebFilter(ProtectedDecider decider, ObjectProvider<ReactiveKeyResolver> resolver,
                EdgeMetrics metrics, SoftLimitNotifier notifier, ConfigurableEnvironment environment, TimeSource time) {
            String header = keyHeader(environment);
            ReactiveKeyResolver keys = resolver.getIfAvailable(() -> header == null ? null
                    : request -> request.getHeaders().getFirst(header));
            return new SluiceWebFilter(decider.decider(), keys, metrics, notifier, time,
                    MAX_BUFFERED_BODY_BYTES, FILTER_ORDER);
        }
    }

    /** The named APIs' cores, shared by their {@code RestClient}s and {@code WebClient}s. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    SluiceApis sluiceApis(ConfigurableEnvironment environment) {
        return new SluiceApis(apis(environment), CoreEnvironment.system());
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({RestClient.class, org.springframework.boot.restclient.RestClientCustomizer.class})
    static class ClientSide {

        @Bean
        @ConditionalOnMissingBean
        SluiceRestClients sluiceRestClients(SluiceApis apis, ObjectProvider<RestClient.Builder> builders) {
            return new SluiceRestClients(apis, builders, TimeSource.system());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.web.reactive.function.client.WebClient",
            "org.springframework.boot.webclient.WebClientCustomizer"})
    static class ReactiveClientSide {

        @Bean
        @ConditionalOnMissingBean
        SluiceWebClients sluiceWebClients(SluiceApis apis,
                ObjectProvider<org.springframework.web.reactive.function.client.WebClient.Builder> builders) {
            return new SluiceWebClients(apis, builders, TimeSource.system());
        }
    }

    /** The named APIs of {@code sluice.clients}. */
    static Map<String, SluiceClientProperties> apis(ConfigurableEnvironment environment) {
        return Binder.get(environment)
                .bind("sluice.clients", Bindable.mapOf(String.class, SluiceClientProperties.class))
                .orElse(Map.of());
    }
}
