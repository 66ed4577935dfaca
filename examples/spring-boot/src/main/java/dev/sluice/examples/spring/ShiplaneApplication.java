package dev.sluice.examples.spring;

import dev.sluice.spring.boot.client.SluiceRestClients;
import java.util.List;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;

/**
 * A small shipping API with the Sluice contract in front of it ({@code sluice.*} in
 * {@code application.yml}): {@code GET /v1/quotes} asks the "carrier" API for its rates through a
 * {@code RestClient} that goes through the Sluice SDK (paced at 90 % of the carrier's 2 req/s,
 * retried after its hints, one Idempotency-Key per write), and the carrier — served here too, under
 * {@code /carrier}, so the example needs nothing else — is limited per partner key by the same filter.
 *
 * <pre>
 * ./mvnw -B -q -pl examples/spring-boot -am package -DskipTests &amp;&amp; java -jar examples/spring-boot/target/sluice-example-spring-boot-0.1.0-SNAPSHOT.jar
 * curl -i -H 'Authorization: Bearer sk_test_free_1' localhost:8080/v1/quotes
 * </pre>
 */
@SpringBootApplication
@RestController
public class ShiplaneApplication {

    private final RestClient carrier;

    public ShiplaneApplication(SluiceRestClients clients) {
        this.carrier = clients.builder("carrier").defaultHeader("Authorization", "Bearer sk_carrier_partner").build();
    }

    public static void main(String[] args) {
        SpringApplication.run(ShiplaneApplication.class, args);
    }

    /** This API's own route: its quotes come from the carrier, through the SDK. */
    @GetMapping("/v1/quotes")
    public Map<String, Object> quotes() {
        Map<?, ?> rates = carrier.get().uri("/rates").retrieve().body(Map.class);
        return Map.of("quotes", List.of(Map.of("carrier", "ups", "rates", rates)));
    }

    /** The carrier's API (another service in real life), limited to 2 requests a second per partner. */
    @GetMapping("/carrier/rates")
    public Map<String, Object> carrierRates() {
        return Map.of("ground_cents", 1200, "express_cents", 2900);
    }
}
