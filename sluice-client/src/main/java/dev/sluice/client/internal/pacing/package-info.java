@NullMarked
package dev.sluice.client.internal.pacing;

import org.jspecify.annotations.NullMarked;
