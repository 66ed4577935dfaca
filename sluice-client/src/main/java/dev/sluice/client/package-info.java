@NullMarked
package dev.sluice.client;

import org.jspecify.annotations.NullMarked;
