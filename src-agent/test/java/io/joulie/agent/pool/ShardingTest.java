package io.joulie.agent.pool;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ShardingTest {
    @Test
    void fnv1a32MatchesTheReferenceVectors() {
        assertThat(Sharding.fnv1a32("")).isEqualTo(0x811c9dc5);
        assertThat(Sharding.fnv1a32("a")).isEqualTo(0xe40c292c);
        assertThat(Sharding.fnv1a32("foobar")).isEqualTo(0xbf9cf968);
    }

    @Test
    void hashesUtf8BytesNotChars() {
        // "é" is two UTF-8 bytes (0xC3 0xA9): hash them by hand.
        int h = 0x811c9dc5;
        for (int b : new int[]{0xC3, 0xA9}) {
            h ^= b;
            h *= 0x01000193;
        }
        assertThat(Sharding.fnv1a32("é")).isEqualTo(h);
    }

    @Test
    void shardUsesTheUnsignedHash() {
        // 0xbf9cf968 is negative as an int (-1080231576); unsigned it is 3214735720. Unsigned mod 3 is 1,
        // mod 13 is 1; the signed remainders would be 0 and -8.
        assertThat(Sharding.shardOf("foobar", 3)).isEqualTo(1);
        assertThat(Sharding.shardOf("foobar", 13)).isEqualTo(1);
        assertThat(Sharding.shardOf("foobar", 10)).isZero();
        assertThat(Sharding.shardOf("foobar", 1)).isZero();
        // 0xe40c292c = 3826002220, mod 10 = 0
        assertThat(Sharding.shardOf("a", 10)).isEqualTo((int) (3826002220L % 10));
    }

    @Test
    void everyNodeLandsInExactlyOneShardAndShardsAreUsed() {
        Map<Integer, Integer> counts = new HashMap<>();
        for (int i = 0; i < 1000; i++) {
            int shard = Sharding.shardOf("sim-node-" + i, 4);
            assertThat(shard).isBetween(0, 3);
            counts.merge(shard, 1, Integer::sum);
        }
        assertThat(counts).hasSize(4);
        counts.values().forEach(c -> assertThat(c).isBetween(180, 320));
    }
}
