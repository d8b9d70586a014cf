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
 * <li>before the first write to the hardware they are saved ({@link #beforeWrite}): a write whose originals cannot be
 *     kept does not happen;</li>
 * <li>after a restore that put every limit back they are removed ({@link #restored}).</li>
 * </ul>
 * Not thread-safe: the agent's worker and its shutdown (after the worker stopped) call it.
 */
public final class HostOriginals {
    private final OriginalsStore store;
    private final Originals originals;
    private boolean inherited;
    private boolean saved;

    /**
     * @param originals what a restore writes back (those the host was opened with: inherited, else found now)
     * @param inherited they came from the store: an earlier process of this boot wrote limits and did not restore them
     */
    public HostOriginals(OriginalsStore store, Originals originals, boolean inherited) {
        this.store = store;
        this.originals = originals;
        this.inherited = inherited;
        this.saved = inherited;
    }

    /** Keeps originals in this process only (tests of the control code that do not care about restarts). */
    public static HostOriginals inMemory(Powercap powercap, Cpufreq cpufreq) {
        return new HostOriginals(OriginalsStore.memory(), Originals.of(Optional.empty(), powercap, cpufreq), false);
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
     * stored file loses only when both boot ids are known and differ (the node rebooted: it is removed); a file that
     * cannot be read is reported and left for the next save to replace.
     *
     * @param log what was decided and why, one line
     */
    public static Optional<Originals> inherited(OriginalsStore store, Optional<String> bootId, Consumer<String> log) {
        Optional<Originals> stored;
        try {
            stored = store.load();
        } catch (IOException e) {
            log.accept("The originals in " + store.describe() + " cannot be used (" + e.getMessage()
                    + "); the limits in force now are taken as the originals");
            return Optional.empty();
        }
        if (stored.isEmpty()) {
            return Optional.empty();
        }
        Optional<String> storedBoot = stored.get().bootId();
        if (storedBoot.isPresent() && bootId.isPresent() && !storedBoot.equals(bootId)) {
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
            return Optional.empty();
        }
        log.accept("Using the originals an earlier agent process of this boot kept in " + store.describe()
                + (bootId.isEmpty() ? " (the boot id cannot be read, so a reboot since cannot be told)" : "")
                + ": it wrote limits and did not restore them");
        return stored;
    }

    public Originals originals() {
        return originals;
    }

    /** An earlier process of this boot wrote limits and did not put them back, and nothing has restored them since. */
    public boolean leftByEarlierProcess() {
        return inherited;
    }

    /** Saves the originals unless they are stored already; call before every write to the hardware. */
    public void beforeWrite() throws IOException {
        if (!saved) {
            store.save(originals);
            saved = true;
        }
    }

    /** Every limit is back at its original: the stored originals go. */
    public void restored() throws IOException {
        inherited = false;
        if (saved) {
            store.clear();
            saved = false;
        }
    }

    public String describe() {
        return store.describe();
    }
}
