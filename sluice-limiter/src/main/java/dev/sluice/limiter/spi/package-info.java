@NullMarked
package dev.sluice.limiter.spi;

import org.jspecify.annotations.NullMarked;
