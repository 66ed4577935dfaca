@NullMarked
package dev.sluice.wire.dialect;

import org.jspecify.annotations.NullMarked;
