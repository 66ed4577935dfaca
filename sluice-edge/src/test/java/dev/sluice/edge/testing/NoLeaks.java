package dev.sluice.edge.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class, once all its tests have run, if Netty reported a leaked buffer
 * ({@link LeakWatch#assertNoLeaks()}, paranoid detection). Use {@code @ExtendWith(NoLeaks.class)}.
 */
public final class NoLeaks implements AfterAllCallback {

    @Override
    public void afterAll(ExtensionContext context) {
        LeakWatch.assertNoLeaks();
    }
}
