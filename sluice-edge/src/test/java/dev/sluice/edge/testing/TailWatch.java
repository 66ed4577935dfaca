package dev.sluice.edge.testing;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.netty.util.internal.logging.Slf4JLoggerFactory;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Records the warnings Netty logs when an exception reaches the end of a channel pipeline unhandled ("An
 * exceptionCaught() event was fired, and it reached at the tail of the pipeline"), so tests can assert the
 * edge handles every exception itself. Installed by {@link LeakWatch} before any Netty class logs: Netty's
 * loggers are made once, when their classes load. Every call still goes to the real logger.
 */
public final class TailWatch {

    private static final List<String> TAIL_WARNINGS = new CopyOnWriteArrayList<>();

    private TailWatch() {
    }

    static void install() {
        // the test classpath logs through SLF4J (slf4j-simple), whose factory makes loggers publicly
        Slf4JLoggerFactory real = (Slf4JLoggerFactory) Slf4JLoggerFactory.INSTANCE;
        InternalLoggerFactory.setDefaultFactory(new InternalLoggerFactory() {
            @Override
            protected InternalLogger newInstance(String name) {
                InternalLogger logger = real.newInstance(name);
                return (InternalLogger) Proxy.newProxyInstance(TailWatch.class.getClassLoader(),
                        new Class<?>[] {InternalLogger.class}, (proxy, method, args) -> {
                            if (method.getName().equals("warn") && args != null && args.length > 0
                                    && args[0] instanceof String message && message.contains("tail of the pipeline")) {
                                Object cause = args.length > 1 ? args[args.length - 1] : null;
                                TAIL_WARNINGS.add(Thread.currentThread().getName() + ": " + message
                                        + (cause == null ? "" : ": " + cause));
                            }
                            try {
                                return method.invoke(logger, args);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
            }
        });
    }

    /** The tail warnings logged so far in this run, each prefixed with its thread's name. */
    public static List<String> warnings() {
        return List.copyOf(TAIL_WARNINGS);
    }

    /** The tail warnings logged on an edge's event loops ({@code sluice-edge-…}), not on a test client's. */
    public static List<String> edgeWarnings() {
        return TAIL_WARNINGS.stream().filter(w -> w.startsWith("sluice-edge")).toList();
    }
}
