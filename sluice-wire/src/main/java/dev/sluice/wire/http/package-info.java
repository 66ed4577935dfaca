@NullMarked
package dev.sluice.wire.http;

import org.jspecify.annotations.NullMarked;
