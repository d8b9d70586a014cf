package io.joulie.agent.host;

import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Where one family's originals (what {@link KeptOriginals} keeps) outlive the agent process that found them: a file in
 * JOULIE_STATE_DIR ({@link FileOriginalsStore}), or memory that a test keeps across the agent processes it simulates.
 * The store keeps what it is given; which boot's originals are still good is {@link KeptOriginals}' decision.
 *
 * @param <T> the family's originals ({@link CpuOriginals}, the boards' limits by index)
 */
public interface OriginalsStore<T> {
    /**
     * Originals as stored, with the kernel's boot id when they were found and the limits the agent last left in force.
     *
     * @param bootId    {@code /proc/sys/kernel/random/boot_id} then; empty when it could not be read
     * @param originals what a restore writes back
     * @param written   the limits as the agent's last write left them, read back, by the keys of
     *                  {@link OriginalsKind#limits}; empty before its first write is recorded. At start they tell a
     *                  restart without a firmware reset (kexec: the agent's write still in force) from a real reboot
     */
    record Stored<T>(Optional<String> bootId, T originals, Map<String, Long> written) {
        public Stored {
            written = Map.copyOf(written);
        }

        /** Kept before the first write: nothing written yet. */
        public Stored(Optional<String> bootId, T originals) {
            this(bootId, originals, Map.of());
        }
    }

    /** What was saved, if anything; an IOException when it cannot be read or is not an originals file. */
    Optional<Stored<T>> load() throws IOException;

    /** Replaces what is stored, atomically: afterwards {@link #load()} gives these, or, after a crash, what was there. */
    void save(Stored<T> originals) throws IOException;

    /** Removes what is stored (nothing stored: nothing happens). */
    void clear() throws IOException;

    /** Where it is, for messages. */
    String describe();

    /** A store in memory: it outlives the agent objects that use it, not the JVM. */
    static <T> OriginalsStore<T> memory() {
        AtomicReference<Stored<T>> stored = new AtomicReference<>();
        return new OriginalsStore<>() {
            @Override
            public Optional<Stored<T>> load() {
                return Optional.ofNullable(stored.get());
            }

            @Override
            public void save(Stored<T> originals) {
                stored.set(originals);
            }

            @Override
            public void clear() {
                stored.set(null);
            }

            @Override
            public String describe() {
                return "memory";
            }
        };
    }
}
