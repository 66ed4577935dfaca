@NullMarked
package dev.sluice.client.internal.observe;

import org.jspecify.annotations.NullMarked;
