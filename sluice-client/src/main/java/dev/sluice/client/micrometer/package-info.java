@NullMarked
package dev.sluice.client.micrometer;

import org.jspecify.annotations.NullMarked;
