@NullMarked
package dev.sluice.wire.ratelimit;

import org.jspecify.annotations.NullMarked;
