@NullMarked
package dev.sluice.client.internal.core;

import org.jspecify.annotations.NullMarked;
