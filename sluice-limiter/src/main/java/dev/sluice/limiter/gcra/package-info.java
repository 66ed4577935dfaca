@NullMarked
package dev.sluice.limiter.gcra;

import org.jspecify.annotations.NullMarked;
