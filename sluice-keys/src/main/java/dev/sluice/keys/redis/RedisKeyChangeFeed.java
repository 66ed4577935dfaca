package dev.sluice.keys.redis;

import dev.sluice.keys.KeyChanges;
import dev.sluice.keys.internal.ChangeFeed;
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
 * key again. A {@code PING} every 5 s finds a Redis that holds the connection open but answers nothing; then
 * the connection is closed and opened again. The cache's calls run on {@link ChangeFeed}'s thread, never on
 * Lettuce's event loop; reconnecting and the log lines are {@link ChangeFeed}'s.
 */
final class RedisKeyChangeFeed extends ChangeFeed {

    private static final Logger LOG = LoggerFactory.getLogger(RedisKeyChangeFeed.class);
    private static final long POLL_MILLIS = 250;
    private static final long WAIT_SECONDS = 5;
    /** Marks a subscription confirmation in the queue (a key hash is never empty). */
    private static final String SUBSCRIBED = "";

    private final RedisKeyStore store;
    private final BlockingQueue<String> events = new LinkedBlockingQueue<>();
    private volatile StatefulRedisPubSubConnection<String, String> current;

    RedisKeyChangeFeed(RedisKeyStore store, KeyChanges cache) {
        super(cache);
        this.store = store;
    }

    /** Whether the subscription is up now (Lettuce may have lost the connection since the last poll). */
    @Override
    public boolean listening() {
        StatefulRedisPubSubConnection<String, String> c = current;
        return super.listening() && c != null && c.isOpen();
    }

    @Override
    protected void session() throws Exception {
        StatefulRedisPubSubConnection<String, String> c =
                store.endpoint().connectPubSub().toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
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
        boolean wasOpen = true;
        while (running()) {
            String event = events.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
            boolean open = c.isOpen();
            if (!open && wasOpen) {
                lost("the subscription's connection is lost");
            }
            wasOpen = open;
            if (SUBSCRIBED.equals(event)) {
                subscribed();
            } else if (event != null) {
                cache().changed(event);
            }
            if (open && probeDue()) {
                c.async().ping().get(WAIT_SECONDS, TimeUnit.SECONDS);
            }
        }
    }

    @Override
    protected void closeSession() {
        StatefulRedisPubSubConnection<String, String> c = current;
        current = null;
        if (c != null) {
            try {
                c.close();
            } catch (RuntimeException closing) {
                LOG.debug("closing the subscription's connection", closing);
            }
        }
    }
}
