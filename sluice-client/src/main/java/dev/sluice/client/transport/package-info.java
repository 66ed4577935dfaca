@NullMarked
package dev.sluice.client.transport;

import org.jspecify.annotations.NullMarked;
