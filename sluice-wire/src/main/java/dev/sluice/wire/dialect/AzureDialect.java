package dev.sluice.wire.dialect;

import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.value.WireNumbers;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Azure Resource Manager: {@code x-ms-ratelimit-remaining-<scope>-<operation>: 11999} (e.g.
 * {@code subscription-reads}, {@code tenant-writes}), one policy each with only {@code remaining};
 * and the Compute resource provider's list
 * {@code x-ms-ratelimit-remaining-resource: Microsoft.Compute/GetVMScaleSet3Min;197,...}, one
 * policy per {@code name;remaining} pair, listed after the others. No limit or reset is given; a
 * 429 carries {@code Retry-After} or {@code x-ms-retry-after-ms}, which the registry reads.
 * Id {@code azure}.
 */
public final class AzureDialect implements Dialect {

    public static final AzureDialect INSTANCE = new AzureDialect();

    private static final String PREFIX = "x-ms-ratelimit-remaining-";
    private static final String RESOURCE = PREFIX + "resource";

    private AzureDialect() {
    }

    @Override
    public String id() {
        return "azure";
    }

    @Override
    public Optional<DialectReading> read(DialectInput in) {
        List<PolicySnapshot> scoped = new ArrayList<>();
        List<PolicySnapshot> resource = new ArrayList<>();
        for (String name : in.names()) {
            if (!name.startsWith(PREFIX) || name.length() == PREFIX.length()) {
                continue;
            }
            if (name.equals(RESOURCE)) {
                for (String line : in.all(name)) {
                    for (String pair : line.split(",")) {
                        int semi = pair.lastIndexOf(';');
                        long remaining = semi > 0 ? WireNumbers.parseCount(pair.substring(semi + 1)) : -1;
                        if (remaining >= 0) {
                            resource.add(PolicySnapshot.builder()
                                    .name(pair.substring(0, semi).strip())
                                    .remaining(remaining)
                                    .build());
                        }
                    }
                }
            } else {
                Long remaining = in.count(name);
                if (remaining != null) {
                    scoped.add(PolicySnapshot.builder()
                            .name(name.substring(PREFIX.length()))
                            .remaining(remaining)
                            .quotaUnit("requests")
                            .build());
                }
            }
        }
        if (scoped.isEmpty() && resource.isEmpty()) {
            return Optional.empty();
        }
        DialectReading.Builder r = DialectReading.builder();
        scoped.forEach(r::policy);
        resource.forEach(r::policy);
        return Optional.of(r.build());
    }
}
