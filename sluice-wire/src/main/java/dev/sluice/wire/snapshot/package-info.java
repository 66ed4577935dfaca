@NullMarked
package dev.sluice.wire.snapshot;

import org.jspecify.annotations.NullMarked;
