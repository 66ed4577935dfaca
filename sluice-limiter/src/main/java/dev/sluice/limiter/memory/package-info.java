@NullMarked
package dev.sluice.limiter.memory;

import org.jspecify.annotations.NullMarked;
