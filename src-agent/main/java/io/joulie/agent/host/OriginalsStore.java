package io.joulie.agent.host;

import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Where the {@link Originals} outlive the agent process that found them: a file in JOULIE_STATE_DIR
 * ({@link FileOriginalsStore}), or memory that a test keeps across the agent processes it simulates.
 */
public interface OriginalsStore {
    /** What was saved, if anything; an IOException when it cannot be read or is not an originals file. */
    Optional<Originals> load() throws IOException;

    /** Replaces what is stored, atomically: afterwards {@link #load()} gives these, or, after a crash, what was there. */
    void save(Originals originals) throws IOException;

    /** Removes what is stored (nothing stored: nothing happens). */
    void clear() throws IOException;

    /** Where it is, for messages. */
    String describe();

    /** A store in memory: it outlives the agent objects that use it, not the JVM. */
    static OriginalsStore memory() {
        AtomicReference<Originals> stored = new AtomicReference<>();
        return new OriginalsStore() {
            @Override
            public Optional<Originals> load() {
                return Optional.ofNullable(stored.get());
            }

            @Override
            public void save(Originals originals) {
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
