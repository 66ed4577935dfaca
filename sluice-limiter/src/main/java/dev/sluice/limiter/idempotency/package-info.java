@NullMarked
package dev.sluice.limiter.idempotency;

import org.jspecify.annotations.NullMarked;
