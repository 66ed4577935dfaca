package dev.sluice.keys;

/**
 * What a store's change feed tells the edge's cache ({@link CachingKeySource} implements it): one key changed,
 * or changes may have been missed. Called on the feed's own thread; implementations must not block it for
 * long.
 */
public interface KeyChanges {

    /** The key whose hash is {@code keyHash} was created, changed, revoked or deleted. */
    void changed(String keyHash);

    /** Notifications may have been lost (the feed was down): read every cached key again. Blocking. */
    void resync();
}
