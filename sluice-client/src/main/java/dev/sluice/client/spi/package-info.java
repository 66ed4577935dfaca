@NullMarked
package dev.sluice.client.spi;

import org.jspecify.annotations.NullMarked;
