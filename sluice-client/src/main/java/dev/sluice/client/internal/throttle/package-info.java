@NullMarked
package dev.sluice.client.internal.throttle;

import org.jspecify.annotations.NullMarked;
