package dev.sluice.edge.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Records every buffer leak Netty's detector reports, so tests can assert there is none. Installed
 * before any test runs (a JUnit launcher session listener, registered in
 * {@code META-INF/services}), because Netty creates its detectors when the buffer classes load.
 * Surefire runs this module with {@code -Dio.netty.leakDetection.level=paranoid}: every buffer is
 * tracked.
 */
public final class LeakWatch implements LauncherSessionListener {

    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        TailWatch.install(); // first: Netty makes its loggers when its classes load
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
    }

    /**
     * Collects garbage, nudges the detectors (they report when they next track a buffer), and fails
     * if any leak was reported since the run began.
     */
    public static void assertNoLeaks() {
        collect();
        assertThat(LEAKS).as("Netty leak reports (paranoid detection)").isEmpty();
    }

    /** Collects garbage and nudges the detectors, so leaks of collected buffers are reported now. */
    public static void collect() {
        for (int round = 0; round < 3; round++) {
            System.gc();
            System.runFinalization();
            for (ByteBufAllocator alloc : new ByteBufAllocator[] {PooledByteBufAllocator.DEFAULT,
                    UnpooledByteBufAllocator.DEFAULT}) {
                for (int i = 0; i < 64; i++) {
                    ByteBuf b = alloc.buffer(16);
                    b.release();
                    ByteBuf d = alloc.directBuffer(16);
                    d.release();
                }
            }
        }
    }

    /** The number of leak reports so far. */
    public static int reports() {
        return LEAKS.size();
    }

    private static final class RecordingFactory extends ResourceLeakDetectorFactory {
        @Override
        @SuppressWarnings("deprecation")
        public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                long maxActive) {
            return new ResourceLeakDetector<>(resource, samplingInterval) {
                @Override
                protected void reportTracedLeak(String resourceType, String records) {
                    LEAKS.add(resourceType + records);
                    super.reportTracedLeak(resourceType, records);
                }

                @Override
                protected void reportUntracedLeak(String resourceType) {
                    LEAKS.add(resourceType);
                    super.reportUntracedLeak(resourceType);
                }
            };
        }
    }
}
