@NullMarked
package dev.sluice.client.internal.retry;

import org.jspecify.annotations.NullMarked;
