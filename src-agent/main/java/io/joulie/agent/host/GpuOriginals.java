package io.joulie.agent.host;

import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Where the GPU limits in force before the agent's first write are kept until it writes them back, by board index,
 * mW. An agent that dies after capping the boards must give the next one the limits it found, not its own caps: a
 * store that outlives the process ({@link FileGpuOriginals}, in the state directory) keeps them across a crash;
 * {@link #inMemory()} keeps them for the process's life.
 */
public interface GpuOriginals {
    /** What an earlier run recorded and did not write back, if anything. */
    Optional<Map<Integer, Long>> load() throws IOException;

    /** Keeps the limits in force, before the first limit is written (atomically: afterwards load gives these). */
    void save(Map<Integer, Long> limitsMw) throws IOException;

    /** The limits were written back (or are left in place on purpose): nothing to carry over. */
    void clear() throws IOException;

    /** Where they are, for messages. */
    String describe();

    /** For the life of the process only: a crash loses them. */
    static GpuOriginals inMemory() {
        return new GpuOriginals() {
            private Map<Integer, Long> saved;

            @Override
            public Optional<Map<Integer, Long>> load() {
                return Optional.ofNullable(saved);
            }

            @Override
            public void save(Map<Integer, Long> limitsMw) {
                saved = new TreeMap<>(limitsMw);
            }

            @Override
            public void clear() {
                saved = null;
            }

            @Override
            public String describe() {
                return "memory";
            }
        };
    }
}
