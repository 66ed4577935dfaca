package dev.sluice.httpclient5;

import dev.sluice.wire.http.HttpFields;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpResponse;

/** HttpClient 5's header type as the wire module's {@link HttpFields}. */
final class Hc5 {

    private Hc5() {
    }

    static HttpFields fields(HttpResponse response) {
        HttpFields.Builder b = HttpFields.builder();
        for (Header h : response.getHeaders()) {
            b.add(h.getName(), h.getValue());
        }
        return b.build();
    }
}
