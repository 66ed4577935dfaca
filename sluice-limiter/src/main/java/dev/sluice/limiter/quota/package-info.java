@NullMarked
package dev.sluice.limiter.quota;

import org.jspecify.annotations.NullMarked;
