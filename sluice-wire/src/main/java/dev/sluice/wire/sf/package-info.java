@NullMarked
package dev.sluice.wire.sf;

import org.jspecify.annotations.NullMarked;
