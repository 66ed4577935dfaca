package dev.sluice.delivery.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.delivery.Destination;
import dev.sluice.delivery.Event;
import dev.sluice.delivery.Rate;
import dev.sluice.delivery.spi.WebhookRequest;
import java.net.URI;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class StandardWebhooksTest {

    @Test
    void signsLikeTheStandardWebhooksReferenceVector() {
        // the "sign function works" vector of the Standard Webhooks reference libraries
        String signature = StandardWebhooks.sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330L, "{\"test\": 2432232314}");

        assertThat(signature).isEqualTo("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    @Test
    void theSecretPrefixIsOptional() {
        assertThat(StandardWebhooks.sign("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek",
                1614265330L, "{\"test\": 2432232314}")).isEqualTo("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    @Test
    void aSecretThatIsNotBase64OrTooShortIsRefusedWithoutEchoingIt() {
        assertThatThrownBy(() -> StandardWebhooks.decodeSecret("whsec_not base64!"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageNotContaining("not base64!");
        assertThatThrownBy(() -> StandardWebhooks.decodeSecret("whsec_c2hvcnQ=")) // "short": 5 bytes
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("24..64 bytes; got 5");
    }

    @Test
    void theRequestCarriesTheKeyAsIdempotencyKeyAndWebhookIdWithTheAttemptsTimestamp() {
        Destination d = new Destination("m", URI.create("https://m.example/hooks"), new Rate(1, 1),
                "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", true);
        Event e = new Event("e1", "m", "purchase.completed", "game-8472:purchase:991", "{\"a\":1}",
                Instant.parse("2026-03-01T00:00:00Z"));
        Instant attempt = Instant.parse("2026-03-01T12:00:00.900Z");

        WebhookRequest q = StandardWebhooks.request(e, d, attempt);

        assertThat(q.headers().first("Idempotency-Key")).contains("game-8472:purchase:991");
        assertThat(q.headers().first("webhook-id")).contains("game-8472:purchase:991");
        assertThat(q.headers().first("webhook-timestamp")).contains("1772366400"); // the attempt, not the event
        assertThat(q.headers().first("webhook-signature")).contains(StandardWebhooks.sign(d.secret(),
                "game-8472:purchase:991", 1772366400L, "{\"a\":1}"));
    }
}
