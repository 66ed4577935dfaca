package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.Test;

/** The three URL forms of {@link RedisUrl}, and what they refuse. */
class RedisUrlTest {

    @Test
    void aServerUrlIsOneNode() {
        RedisUrl u = RedisUrl.parse(" rediss://:s3cret@10.0.0.5:6380/2 ");
        assertThat(u.topology()).isEqualTo(RedisUrl.Topology.STANDALONE);
        assertThat(u.nodes()).singleElement().satisfies(n -> {
            assertThat(n.getHost()).isEqualTo("10.0.0.5");
            assertThat(n.getPort()).isEqualTo(6380);
            assertThat(n.getDatabase()).isEqualTo(2);
            assertThat(n.isSsl()).isTrue();
        });
        assertThat(u.masked()).isEqualTo("rediss://***@10.0.0.5:6380/2");
        assertThat(u.hosts()).isEqualTo("10.0.0.5:6380");
    }

    @Test
    void aClusterUrlIsItsSeedsEachWithTheCredentialsAndOptions() {
        RedisUrl u = RedisUrl.parse("rediss-cluster://app:s3cret@h1:7000,h2,[::1]:7002?timeout=5s");
        assertThat(u.topology()).isEqualTo(RedisUrl.Topology.CLUSTER);
        assertThat(u.nodes()).extracting(RedisURI::getHost).containsExactly("h1", "h2", "[::1]");
        assertThat(u.nodes()).extracting(RedisURI::getPort).containsExactly(7000, 6379, 7002);
        assertThat(u.nodes()).allSatisfy(n -> {
            assertThat(n.isSsl()).isTrue();
            io.lettuce.core.RedisCredentials credentials = n.getCredentialsProvider().resolveCredentials().block();
            assertThat(credentials.getUsername()).isEqualTo("app");
            assertThat(credentials.getPassword()).isEqualTo("s3cret".toCharArray());
            assertThat(n.getTimeout()).hasSeconds(5);
        });
        assertThat(u.toString()).isEqualTo("rediss-cluster://***@h1:7000,h2,[::1]:7002?timeout=5s");
        assertThat(u.hosts()).isEqualTo("cluster h1:7000,h2:6379,[::1]:7002");
    }

    @Test
    void aSentinelUrlNamesItsSentinelsAndMaster() {
        RedisUrl u = RedisUrl.parse("redis-sentinel://:pw@s1:26379,s2:26380/3#orders");
        assertThat(u.topology()).isEqualTo(RedisUrl.Topology.SENTINEL);
        RedisURI uri = u.nodes().getFirst();
        assertThat(uri.getSentinelMasterId()).isEqualTo("orders");
        assertThat(uri.getSentinels()).extracting(RedisURI::getPort).containsExactly(26379, 26380);
        assertThat(uri.getDatabase()).isEqualTo(3);
        assertThat(u.hosts()).isEqualTo("master orders of sentinel s1:26379,s2:26380");
        assertThat(u.masked()).doesNotContain("pw");
    }

    @Test
    void whatTheStoresCannotUseIsRefusedWithTheReasonAndNoPassword() {
        assertThatThrownBy(() -> RedisUrl.parse("http://:pw@h:6379"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("must be a redis://, rediss://, redis-cluster://, rediss-cluster://, redis-sentinel:// or "
                        + "rediss-sentinel:// URL, was \"http://***@h:6379\"");
        assertThatThrownBy(() -> RedisUrl.parse("redis-sentinel://s1:26379"))
                .hasMessage("a sentinel URL names its master after '#' (redis-sentinel://host:26379#mymaster), was "
                        + "\"redis-sentinel://s1:26379\"");
        assertThatThrownBy(() -> RedisUrl.parse("redis-cluster://h1:7000/2"))
                .hasMessage("a Redis Cluster has database 0 only, was \"/2\" in \"redis-cluster://h1:7000/2\"");
        assertThatThrownBy(() -> RedisUrl.parse("redis-cluster://h1:7000,,h2"))
                .hasMessageStartingWith("must name a host for each seed");
    }
}
