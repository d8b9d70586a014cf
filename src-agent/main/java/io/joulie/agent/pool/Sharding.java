package io.joulie.agent.pool;

import java.nio.charset.StandardCharsets;

/** Which pool agent serves a node: FNV-1a 32-bit of the node name (UTF-8) modulo POOL_SHARDS. */
public final class Sharding {
    static final int OFFSET_BASIS = 0x811c9dc5;
    static final int PRIME = 0x01000193;

    private Sharding() {
    }

    /** FNV-1a, 32 bits, over the UTF-8 bytes of {@code s}; the result is the unsigned hash in an int. */
    public static int fnv1a32(String s) {
        int hash = OFFSET_BASIS;
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            hash ^= b & 0xff;
            hash *= PRIME;
        }
        return hash;
    }

    /** The shard (0..shards-1) of a node: the unsigned hash modulo {@code shards}. */
    public static int shardOf(String nodeName, int shards) {
        return (int) (Integer.toUnsignedLong(fnv1a32(nodeName)) % shards);
    }
}
