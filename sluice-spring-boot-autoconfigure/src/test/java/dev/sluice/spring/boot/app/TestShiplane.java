package dev.sluice.spring.boot.app;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/** A Spring MVC stand-in for Shiplane's routes, behind the Sluice filter. */
@SpringBootApplication
@RestController
public class TestShiplane {

    /** Labels bought per Idempotency-Key (the controller deduplicates nothing, as Shiplane). */
    public final Map<String, AtomicInteger> labels = new ConcurrentHashMap<>();

    @GetMapping("/v1/quotes")
    public Map<String, Object> quotes() {
        return Map.of("quotes", java.util.List.of(Map.of("carrier", "ups", "cents", 1200)));
    }

    @PostMapping("/v1/labels")
    public ResponseEntity<Map<String, Object>> label(@RequestHeader("Idempotency-Key") String key,
            @RequestBody String body) {
        int n = labels.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        return ResponseEntity.status(HttpStatus.CREATED).body(Map.of("label_id", "lbl_" + key, "bought", n,
                "request", body));
    }

    @PostMapping("/v1/login")
    public Map<String, Object> login() {
        return Map.of("token", "t");
    }
}
