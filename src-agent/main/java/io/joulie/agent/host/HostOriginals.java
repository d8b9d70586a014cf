package io.joulie.agent.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What the agent found on the hardware, kept across agent processes of one boot ({@link OriginalsStore}):
 * <ul>
 * <li>at start, originals stored by an earlier process of this boot win over the limits in force (which may be that
 *     process's caps, left by a crash); a file of another boot is removed, because the firmware reset the limits when
 *     the node rebooted and what is in force now is what must come back ({@link #inherited});</li>
 * <li>before the first write to the hardware (the first since the start or since the last restore) they are read
 *     again, as that write is about to change them, and saved ({@link #beforeWrite}): a write whose originals cannot
 *     be kept does not happen;</li>
 * <li>after a restore that put every limit back they are removed ({@link #restored}).</li>
 * </ul>
 * Not thread-safe: the agent's worker and its shutdown (after the worker stopped) call it.
 */
public final class HostOriginals {
    /**
     * What the store held at start.
     *
     * @param inherited originals an earlier agent process of this boot kept
     * @param unusable  why the store could not be read: it may hold originals, so nothing may be written
     */
    public record Start(Optional<Originals> inherited, Optional<String> unusable) {
        public static final Start NOTHING = new Start(Optional.empty(), Optional.empty());
    }

    private final OriginalsStore store;
    private final Optional<String> bootId;
    private final Powercap powercap;
    private final Cpufreq cpufreq;
    private final Optional<String> unusable;
    private boolean inherited;
    /**
     * The originals are saved and the agent may have changed the hardware since (an attempt that left it exactly at the
     * originals does not count).
     */
    private boolean held;

    /**
     * @param powercap the host's RAPL limits, opened with the inherited originals if there are any
     * @param cpufreq  the host's cpufreq ceilings, likewise
     * @param start    what {@link #inherited} found: originals an earlier process of this boot wrote limits over and did
     *                 not restore, or a store that could not be read
     */
    public HostOriginals(OriginalsStore store, Optional<String> bootId, Powercap powercap, Cpufreq cpufreq, Start start) {
        this.store = store;
        this.bootId = bootId;
        this.powercap = powercap;
        this.cpufreq = cpufreq;
        this.unusable = start.unusable();
        this.inherited = start.inherited().isPresent();
        this.held = inherited;
    }

    /** Keeps originals in this process only (tests of the control code that do not care about restarts). */
    public static HostOriginals inMemory(Powercap powercap, Cpufreq cpufreq) {
        return new HostOriginals(OriginalsStore.memory(), Optional.empty(), powercap, cpufreq, Start.NOTHING);
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

    /**
     * At start, before the host is opened: the originals an earlier agent process of this boot stored, if any. A
     * stored file loses only when both boot ids are known and differ (the node rebooted: it is removed). A store that
     * cannot be read may hold originals the limits in force now are not: this agent process then writes nothing
     * ({@link #beforeWrite} says why), rather than take a crashed agent's caps for the originals.
     *
     * @param log what was decided and why, one line
     */
    public static Start inherited(OriginalsStore store, Optional<String> bootId, Consumer<String> log) {
        Optional<Originals> stored;
        try {
            stored = store.load();
        } catch (IOException e) {
            String why = "the originals in " + store.describe() + " cannot be read (" + e.getMessage() + "); this agent writes "
                    + "no limit until it is restarted with them readable (or, after checking the limits, without the file)";
            log.accept(why);
            return new Start(Optional.empty(), Optional.of(why));
        }
        if (stored.isEmpty()) {
            return Start.NOTHING;
        }
        Optional<String> storedBoot = stored.get().bootId();
        if (otherBoot(storedBoot, bootId)) {
            String removal;
            try {
                store.clear();
                removal = "removed";
            } catch (IOException e) {
                removal = "not removed (" + e.getMessage() + ")";
            }
            log.accept("The originals in " + store.describe() + " are of boot " + storedBoot.get() + ", this is boot "
                    + bootId.get() + ": the node rebooted and its firmware reset the limits, so the limits in force now are the "
                    + "originals; the file was " + removal);
            return Start.NOTHING;
        }
        log.accept("Using the originals an earlier agent process of this boot kept in " + store.describe()
                + (bootId.isEmpty() ? " (the boot id cannot be read, so a reboot since cannot be told)" : "")
                + ": it wrote limits and did not restore them");
        return new Start(stored, Optional.empty());
    }

    /** Originals kept in boot {@code stored} are stale in boot {@code now}: both are known and differ. */
    static boolean otherBoot(Optional<String> stored, Optional<String> now) {
        return stored.isPresent() && now.isPresent() && !stored.equals(now);
    }

    /** What a restore writes back. */
    private Originals originals() {
        return Originals.of(bootId, powercap, cpufreq);
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
        return held;
    }

    /**
     * Unless the originals are stored already: reads what is in force now as the originals (nothing of the agent's is:
     * this is its first write since the start or the last restore, and what someone set meanwhile is what must come
     * back) and saves them. Call before every write to the hardware.
     */
    public void beforeWrite() throws IOException {
        if (unusable.isPresent()) {
            throw new IOException(unusable.get());
        }
        if (!held) {
            powercap.recordOriginals();
            cpufreq.recordOriginals();
            store.save(originals());
            held = true;
        }
    }

    /**
     * The attempt since {@link #beforeWrite} left the hardware exactly at the originals (refused before writing, or
     * rolled back): nothing is held, the kept originals go, and the next {@link #beforeWrite} reads them again, so that
     * what someone sets meanwhile is what comes back. Not for originals an earlier process left: what it changed
     * besides may still be in force. A store that cannot be cleared keeps them (they are what is in force).
     */
    public void nothingWritten() {
        if (!inherited && held) {
            try {
                store.clear();
                held = false;
            } catch (IOException e) {
                // kept: they are what is in force, and a restore writes them back unchanged
            }
        }
    }

    /** Every limit is back at its original: the stored originals go. */
    public void restored() throws IOException {
        inherited = false;
        if (held) {
            store.clear();
            held = false;
        }
    }

    public String describe() {
        return store.describe();
    }
}
