@NullMarked
package dev.sluice.client.internal.admission;

import org.jspecify.annotations.NullMarked;
