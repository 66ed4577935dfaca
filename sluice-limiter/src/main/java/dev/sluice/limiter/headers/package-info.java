@NullMarked
package dev.sluice.limiter.headers;

import org.jspecify.annotations.NullMarked;
