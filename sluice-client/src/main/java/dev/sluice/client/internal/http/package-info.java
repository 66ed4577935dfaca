@NullMarked
package dev.sluice.client.internal.http;

import org.jspecify.annotations.NullMarked;
