package io.joulie.agent.host;

import io.joulie.agent.host.OriginalsStore.Stored;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What the agent found on one family's hardware (the CPU's packages and cpufreq policies, the GPU boards), kept across
 * agent processes of one boot ({@link OriginalsStore}):
 * <ul>
 * <li>at start, originals stored by an earlier process of this boot win over the limits in force (which may be that
 *     process's caps, left by a crash); a file of another boot is removed, because the firmware or the driver reset
 *     the limits when the node rebooted and what is in force now is what must come back ({@link #open});</li>
 * <li>a store that cannot be read at start may hold originals the limits in force are not: nothing of the family is
 *     written by this process ({@link #unusable});</li>
 * <li>before the first write to the hardware (the first since the start or since the last restore) they are read
 *     again, as that write is about to change them, and saved ({@link #beforeWrite}): a write whose originals cannot
 *     be kept does not happen;</li>
 * <li>an attempt that left the hardware exactly at them keeps nothing ({@link #nothingWritten});</li>
 * <li>after a restore that put every limit back they are removed ({@link #restored}).</li>
 * </ul>
 * Not thread-safe: the agent's worker and its shutdown (after the worker stopped) call it.
 *
 * @param <T> the family's originals
 */
public final class KeptOriginals<T> {
    /** Reads what is in force now as the originals. */
    @FunctionalInterface
    public interface InForce<T> {
        T read() throws IOException;
    }

    private final OriginalsKind<T> kind;
    private final OriginalsStore<T> store;
    private final Optional<String> bootId;
    private final Optional<String> unusable;
    /** The originals are an earlier process's: what it changed is in force, so they stay kept until a restore. */
    private boolean inherited;
    /**
     * The originals saved in the store; present while the agent may have changed the hardware since (an attempt that
     * left it exactly at them does not count).
     */
    private Optional<T> kept;

    private KeptOriginals(OriginalsKind<T> kind, OriginalsStore<T> store, Optional<String> bootId, Optional<T> inherited,
                          Optional<String> unusable) {
        this.kind = kind;
        this.store = store;
        this.bootId = bootId;
        this.kept = inherited;
        this.inherited = inherited.isPresent();
        this.unusable = unusable;
    }

    /**
     * At start, before the family's hardware is opened: takes over the originals an earlier agent process of this boot
     * stored, if any. A stored file loses only when both boot ids are known and differ (the node rebooted: it is
     * removed). A store that cannot be read may hold originals the limits in force now are not: this agent process
     * then writes none of the family's limits ({@link #unusable} says why), rather than take a crashed agent's caps for
     * the originals.
     *
     * @param bootId the kernel's boot id now ({@link #bootId(HostRoots)}); empty when it cannot be read
     * @param log    what was decided and why, one line
     */
    public static <T> KeptOriginals<T> open(OriginalsKind<T> kind, OriginalsStore<T> store, Optional<String> bootId,
                                            Consumer<String> log) {
        Optional<Stored<T>> stored;
        try {
            stored = store.load();
        } catch (IOException e) {
            String why = "the " + kind.noun() + " in " + store.describe() + " cannot be read (" + e.getMessage() + "); this agent "
                    + "writes no " + kind.limit() + " until it is restarted with them readable (or, after checking the limits, "
                    + "without the file)";
            log.accept(why);
            return new KeptOriginals<>(kind, store, bootId, Optional.empty(), Optional.of(why));
        }
        if (stored.isEmpty()) {
            return new KeptOriginals<>(kind, store, bootId, Optional.empty(), Optional.empty());
        }
        Optional<String> storedBoot = stored.get().bootId();
        if (storedBoot.isPresent() && bootId.isPresent() && !storedBoot.equals(bootId)) {
            String removal;
            try {
                store.clear();
                removal = "removed";
            } catch (IOException e) {
                // still of another boot: its limits are not this boot's originals, and the family goes on
                removal = "not removed (" + e.getMessage() + ")";
            }
            log.accept("The " + kind.noun() + " in " + store.describe() + " are of boot " + storedBoot.get() + ", this is boot "
                    + bootId.get() + ": the node rebooted and " + kind.resetOnReboot() + ", so the limits in force now are the "
                    + "originals; the file was " + removal);
            return new KeptOriginals<>(kind, store, bootId, Optional.empty(), Optional.empty());
        }
        log.accept("Using the " + kind.noun() + " an earlier agent process of this boot kept in " + store.describe()
                + (bootId.isEmpty() ? " (the boot id cannot be read, so a reboot since cannot be told)" : "")
                + ": it wrote limits and did not restore them");
        return new KeptOriginals<>(kind, store, bootId, Optional.of(stored.get().originals()), Optional.empty());
    }

    /** Keeps originals in this process only (tests of the control code that do not care about restarts). */
    public static <T> KeptOriginals<T> inMemory(OriginalsKind<T> kind) {
        return new KeptOriginals<>(kind, OriginalsStore.memory(), Optional.empty(), Optional.empty(), Optional.empty());
    }

    /** The kernel's boot id under the host's procfs ({@code <proc>/sys/kernel/random/boot_id}); empty if unreadable. */
    public static Optional<String> bootId(HostRoots roots) {
        Path file = roots.proc().resolve("sys/kernel/random/boot_id");
        try {
            return Optional.of(Files.readString(file).strip()).filter(id -> !id.isEmpty());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Why the store could not be read at start, if it could not: then no limit of the family may be written. */
    public Optional<String> unusable() {
        return unusable;
    }

    /**
     * The originals kept (this process's, or an earlier one's it did not write back); empty while nothing is held. At
     * start: what an earlier process of this boot left, which the family's hardware is opened with.
     */
    public Optional<T> kept() {
        return kept;
    }

    /** An earlier process of this boot wrote limits and did not put them back, and nothing has restored them since. */
    public boolean leftByEarlierProcess() {
        return inherited;
    }

    /**
     * The agent (this process or an earlier one of this boot) may have changed the hardware since the last restore, and
     * the originals are kept: a restore has something to put back.
     */
    public boolean held() {
        return kept.isPresent();
    }

    /**
     * Unless the originals are kept already: reads what is in force now as the originals (nothing of the agent's is:
     * this is its first write since the start or the last restore, and what someone set meanwhile is what must come
     * back) and saves them. Call before every write to the hardware; an IOException means the write must not happen.
     */
    public void beforeWrite(InForce<T> inForce) throws IOException {
        if (unusable.isPresent()) {
            throw new IOException(unusable.get());
        }
        if (kept.isEmpty()) {
            T originals = inForce.read();
            store.save(new Stored<>(bootId, originals));
            kept = Optional.of(originals);
        }
    }

    /**
     * The attempt since {@link #beforeWrite} left the hardware exactly at the originals (refused before writing, or
     * rolled back): nothing is held, the kept originals go, and the next {@link #beforeWrite} reads them again, so that
     * what someone sets meanwhile is what comes back. Not for originals an earlier process left: what it changed
     * besides may still be in force. A store that cannot be cleared keeps them (they are what is in force).
     */
    public void nothingWritten() {
        if (!inherited && kept.isPresent()) {
            try {
                store.clear();
                kept = Optional.empty();
            } catch (IOException e) {
                // kept: they are what is in force, and a restore writes them back unchanged
            }
        }
    }

    /**
     * Every limit is back at its original: the stored originals go. A store that cannot be cleared keeps them held (they
     * are what is in force, and the next restore writes them back unchanged and tries again).
     */
    public void restored() throws IOException {
        inherited = false;
        if (kept.isPresent()) {
            store.clear();
            kept = Optional.empty();
        }
    }

    /** Where they are kept, for messages. */
    public String describe() {
        return store.describe();
    }
}
