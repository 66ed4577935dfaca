package dev.sluice.cli.edge;

import sun.misc.Signal;

/**
 * Reloads on {@code SIGHUP}, the Unix convention for "re-read your configuration". Uses the JDK's
 * {@code sun.misc.Signal} (module {@code jdk.unsupported}, present in every JDK); where the signal
 * does not exist (Windows) nothing is installed.
 */
final class Hangup {

    private Hangup() {
    }

    /** Runs {@code reload} on each SIGHUP (on the JVM's signal thread). */
    static void install(Runnable reload) {
        try {
            Signal.handle(new Signal("HUP"), s -> reload.run());
        } catch (IllegalArgumentException e) {
            // no SIGHUP on this platform
        }
    }
}
