package dev.sluice.wire.dialect;

import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.value.WireNumbers;
import java.util.Optional;

/**
 * Shopify Admin REST: {@code X-Shopify-Shop-Api-Call-Limit: 32/40} is a leaky bucket, 32 of 40
 * calls used (so 8 remain), leaking at the plan's rate; a 429 carries a decimal
 * {@code Retry-After} ({@code 2.0}), which the registry reads leniently. Id {@code shopify}.
 * The policy is named {@code call-limit} and is a burst policy.
 */
public final class ShopifyDialect implements Dialect {

    public static final ShopifyDialect INSTANCE = new ShopifyDialect();

    private ShopifyDialect() {
    }

    @Override
    public String id() {
        return "shopify";
    }

    @Override
    public Optional<DialectReading> read(DialectInput in) {
        if (!in.has("x-shopify-shop-api-call-limit")) {
            return Optional.empty();
        }
        DialectReading.Builder r = DialectReading.builder();
        // sent twice, one policy per value: the registry merges them (lowest remaining, SPEC §2.4)
        for (String value : in.members("x-shopify-shop-api-call-limit")) {
            addPolicy(r, value);
        }
        return Optional.of(r.build());
    }

    private static void addPolicy(DialectReading.Builder r, String value) {
        int slash = value.indexOf('/');
        if (slash > 0) {
            long used = WireNumbers.parseCount(value.substring(0, slash));
            long limit = WireNumbers.parseCount(value.substring(slash + 1));
            if (used >= 0 && limit >= 0) {
                r.policy(PolicySnapshot.builder()
                        .name("call-limit")
                        .quota(limit)
                        .used(used)
                        .quotaUnit("requests")
                        .kind(PolicySnapshot.PolicyKind.BURST)
                        .build());
            }
        }
    }
}
