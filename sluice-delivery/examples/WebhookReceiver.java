// A Standard Webhooks receiver for trying `sluice deliver`: verifies webhook-signature with the
// shared secret, deduplicates by webhook-id, and answers 429 with Retry-After to every third new
// event once, so that the worker's retry shows. Run with: java WebhookReceiver.java 8082 whsec_...
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

public class WebhookReceiver {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        byte[] key = Base64.getDecoder().decode(args[1].replaceFirst("^whsec_", ""));
        Set<String> seen = ConcurrentHashMap.newKeySet();
        Set<String> throttled = ConcurrentHashMap.newKeySet();
        AtomicInteger fresh = new AtomicInteger();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        server.createContext("/", x -> {
            String body = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String id = x.getRequestHeaders().getFirst("webhook-id");
            String ts = x.getRequestHeaders().getFirst("webhook-timestamp");
            String sig = x.getRequestHeaders().getFirst("webhook-signature");
            int status;
            try {
                Mac mac = Mac.getInstance("HmacSHA256");
                mac.init(new SecretKeySpec(key, "HmacSHA256"));
                String expected = "v1," + Base64.getEncoder().encodeToString(
                        mac.doFinal((id + "." + ts + "." + body).getBytes(StandardCharsets.UTF_8)));
                boolean valid = sig != null && MessageDigest.isEqual(expected.getBytes(), sig.getBytes());
                if (!valid) {
                    status = 401;
                } else if (seen.contains(id)) {
                    status = 200; // a repeat: acknowledged, not processed again
                } else if (fresh.incrementAndGet() % 3 == 0 && throttled.add(id)) {
                    x.getResponseHeaders().add("Retry-After", "2");
                    status = 429;
                } else {
                    seen.add(id);
                    status = 200;
                }
            } catch (Exception e) {
                status = 500;
            }
            System.out.printf("%s %s %d %s%n", id, ts, status, body);
            x.sendResponseHeaders(status, -1);
            x.close();
        });
        server.start();
        System.out.println("receiving on http://127.0.0.1:" + port + "/hooks");
    }
}
