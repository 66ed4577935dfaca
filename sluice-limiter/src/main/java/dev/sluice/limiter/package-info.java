@NullMarked
package dev.sluice.limiter;

import org.jspecify.annotations.NullMarked;
