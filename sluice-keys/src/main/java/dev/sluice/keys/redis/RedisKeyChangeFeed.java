package dev.sluice.keys.redis;

import dev.sluice.keys.KeyChanges;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the edge's key cache current from Redis: a publish/subscribe connection of its own subscribes to the
 * store's channel; each message (a key's hash, published by every write script) refreshes that key
 * ({@link KeyChanges#changed}) within a second. Messages published while the connection was down are lost,
 * so every subscription confirmation (the first, and Lettuce's own after each reconnect) reads every cached
 * key again ({@link KeyChanges#resync}). A {@code PING} every 5 s on the connection finds a Redis that holds
 * the connection open but answers nothing; then the connection is closed and opened again every second. One
 * daemon thread, {@code sluice-keys-notifications}, runs the cache's calls (never Lettuce's event loop),
 * ended by {@link #close()}.
 */
final class RedisKeyChangeFeed implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RedisKeyChangeFeed.class);
    private static final long POLL_MILLIS = 250;
    private static final long PROBE_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long WAIT_SECONDS = 5;
    /** Marks a subscription confirmation in the queue (a key hash is never empty). */
    private static final String SUBSCRIBED = "";

    private final RedisKeyStore store;
    private final KeyChanges cache;
    private final Thread thread;
    private final BlockingQueue<String> events = new LinkedBlockingQueue<>();
    private volatile boolean running = true;
    private volatile StatefulRedisPubSubConnection<String, String> current;
    private volatile boolean listening;

    RedisKeyChangeFeed(RedisKeyStore store, KeyChanges cache) {
        this.store = store;
        this.cache = cache;
        this.thread = new Thread(this::run, "sluice-keys-notifications");
        this.thread.setDaemon(true);
    }

    /** Starts the thread; returns at once. */
    RedisKeyChangeFeed start() {
        thread.start();
        return this;
    }

    /** Whether the subscription is up now. */
    boolean listening() {
        StatefulRedisPubSubConnection<String, String> c = current;
        return listening && c != null && c.isOpen();
    }

    private void run() {
        boolean warned = false;
        while (running) {
            StatefulRedisPubSubConnection<String, String> c = null;
            try {
                c = store.endpoint().connectPubSub().toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
                current = c;
                String channel = store.channel();
                events.clear();
                c.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void message(String from, String message) {
                        if (channel.equals(from) && !message.isEmpty()) {
                            events.add(message);
                        }
                    }

                    @Override
                    public void subscribed(String to, long count) {
                        if (channel.equals(to)) {
                            events.add(SUBSCRIBED);
                        }
                    }
                });
                c.async().subscribe(channel).get(WAIT_SECONDS, TimeUnit.SECONDS);
                long lastProbe = System.nanoTime();
                boolean wasOpen = true;
                while (running) {
                    String event = events.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
                    boolean open = c.isOpen();
                    if (!open && wasOpen && listening) {
                        listening = false;
                        LOG.warn("key change notifications down (the subscription's connection is lost); "
                                + "reconnecting, cached keys are read again when they are back");
                        warned = true;
                    }
                    wasOpen = open;
                    if (SUBSCRIBED.equals(event)) {
                        cache.resync();
                        listening = true;
                        if (warned) {
                            LOG.warn("key change notifications up again");
                            warned = false;
                        }
                    } else if (event != null) {
                        cache.changed(event);
                    }
                    if (open && System.nanoTime() - lastProbe > PROBE_NANOS) {
                        c.async().ping().get(WAIT_SECONDS, TimeUnit.SECONDS);
                        lastProbe = System.nanoTime();
                    }
                }
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                listening = false;
                if (c != null) {
                    try {
                        c.close();
                    } catch (RuntimeException closing) {
                        LOG.debug("closing the subscription's connection", closing);
                    }
                }
                current = null;
                if (!running) {
                    return;
                }
                if (!warned) {
                    LOG.warn("key change notifications down; retrying every second, cached keys are read again "
                            + "when they are back", e);
                    warned = true;
                }
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        StatefulRedisPubSubConnection<String, String> c = current;
        if (c != null) {
            c.close();
        }
    }
}
