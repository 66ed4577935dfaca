package dev.sluice.edge.internal;

import dev.sluice.edge.config.AdminConfig;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Who may use the admin port's API ({@code /admin/v1/...}: the key API and the dashboard's data): with
 * {@code admin.token} set, a request with {@code Authorization: Bearer <token>} (compared in constant
 * time); without a token, anyone who can reach a loopback-bound admin port, and nobody on another
 * address. Immutable and thread-safe.
 */
final class AdminAccess {

    private final AdminConfig admin;
    private final byte[] token;

    AdminAccess(AdminConfig admin) {
        this.admin = admin;
        this.token = admin.token().map(t -> t.getBytes(StandardCharsets.UTF_8)).orElse(null);
    }

    /** 401 without the token, 403 when there is no token and the port is not on loopback; else null. */
    KeyAdminApi.Reply check(FullHttpRequest req) {
        if (token == null) {
            return admin.loopback() ? null : KeyAdminApi.problem(403, "admin_api_off", "The admin API is off: the "
                    + "admin port is bound to " + admin.host() + ", which is not loopback, and admin.token is not set.");
        }
        String auth = req.headers().get(HttpHeaderNames.AUTHORIZATION);
        if (auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)
                && MessageDigest.isEqual(auth.substring(7).strip().getBytes(StandardCharsets.UTF_8), token)) {
            return null;
        }
        return KeyAdminApi.problem(401, "unauthenticated", "Send Authorization: Bearer <admin.token>.");
    }
}
