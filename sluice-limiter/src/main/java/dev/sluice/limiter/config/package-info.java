@NullMarked
package dev.sluice.limiter.config;

import org.jspecify.annotations.NullMarked;
