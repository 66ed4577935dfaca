@NullMarked
package dev.sluice.client.core;

import org.jspecify.annotations.NullMarked;
