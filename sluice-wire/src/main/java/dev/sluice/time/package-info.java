@NullMarked
package dev.sluice.time;

import org.jspecify.annotations.NullMarked;
