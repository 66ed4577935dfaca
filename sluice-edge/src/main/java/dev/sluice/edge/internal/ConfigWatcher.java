package dev.sluice.edge.internal;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the configuration's files (SPEC §3.13a "reload without restart") with a
 * {@link WatchService} on their folders, on one daemon thread (never an event loop). Editors write a
 * file in several steps, so events are coalesced: after the first event the thread waits until the
 * folder has been quiet for {@value #SETTLE_MILLIS} ms, then calls {@code onChange} once.
 */
public final class ConfigWatcher implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ConfigWatcher.class);
    static final long SETTLE_MILLIS = 200;

    private final WatchService service;
    private final Thread thread;

    private ConfigWatcher(WatchService service, Set<Path> names, Runnable onChange) {
        this.service = service;
        this.thread = new Thread(() -> loop(names, onChange), "sluice-edge-config-watch");
        this.thread.setDaemon(true);
    }

    /**
     * Starts watching {@code files}.
     *
     * @param onChange called (on the watcher thread) after a change settles; must not throw
     * @throws IllegalStateException when the folders cannot be watched
     */
    public static ConfigWatcher start(List<Path> files, Runnable onChange) {
        try {
            WatchService service = FileSystems.getDefault().newWatchService();
            Set<Path> names = new HashSet<>();
            Set<Path> folders = new HashSet<>();
            for (Path f : files) {
                Path abs = f.toAbsolutePath().normalize();
                names.add(abs);
                folders.add(abs.getParent());
            }
            for (Path folder : folders) {
                folder.register(service, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
            }
            ConfigWatcher w = new ConfigWatcher(service, names, onChange);
            w.thread.start();
            return w;
        } catch (IOException e) {
            throw new IllegalStateException("cannot watch the configuration files " + files + ": " + e, e);
        }
    }

    private void loop(Set<Path> names, Runnable onChange) {
        try {
            while (true) {
                WatchKey key = service.take();
                boolean relevant = drain(key, names);
                // settle: keep collecting until the folder is quiet
                WatchKey more;
                while ((more = service.poll(SETTLE_MILLIS, TimeUnit.MILLISECONDS)) != null) {
                    relevant |= drain(more, names);
                }
                if (relevant) {
                    onChange.run();
                }
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // closed
        } catch (RuntimeException e) {
            LOG.error("configuration watcher stopped", e);
        }
    }

    private static boolean drain(WatchKey key, Set<Path> names) {
        boolean relevant = false;
        Path folder = (Path) key.watchable();
        for (WatchEvent<?> event : key.pollEvents()) {
            if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
                relevant = true;
            } else if (event.context() instanceof Path p && names.contains(folder.resolve(p).toAbsolutePath()
                    .normalize())) {
                relevant = true;
            }
        }
        key.reset();
        return relevant;
    }

    @Override
    public void close() {
        try {
            service.close();
        } catch (IOException e) {
            LOG.debug("closing the watch service failed", e);
        }
        thread.interrupt();
    }
}
