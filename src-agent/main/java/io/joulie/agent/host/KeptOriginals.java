package io.joulie.agent.host;

import io.joulie.agent.host.OriginalsStore.Stored;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * What the agent found on one family's hardware (the CPU's packages and cpufreq policies, the GPU boards), kept across
 * agent processes of one boot ({@link OriginalsStore}):
 * <ul>
 * <li>at start, originals stored by an earlier process win over the limits in force (which may be that process's caps,
 *     left by a crash or a kexec restart) unless the hardware shows that the firmware or the driver reset the limits:
 *     then what is in force now is what must come back, and the file is removed ({@link #open});</li>
 * <li>after each write, the limits as it left them are recorded with the originals ({@link #afterWrite}): that is what
 *     the test at start compares;</li>
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
    /** The limits as the agent's last write left them, as stored ({@link Stored#written}). */
    private Map<String, Long> written = Map.of();
    /** {@link #written} could not be saved: the next {@link #afterWrite} saves it even if nothing changed. */
    private boolean unsaved;

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
     * At start, before the family's hardware is opened: takes over the originals an earlier agent process stored, if
     * any, unless the hardware shows that they went stale. Stored by an earlier process of this boot (both boot ids
     * known and equal: a crash, the firmware did not run), they are kept. Otherwise (another boot, or a boot id that
     * cannot be read now or could not be then) the limits in force decide:
     * <ul>
     * <li>a limit the agent last wrote (other than its original) is still in force: the node restarted without its
     *     firmware resetting the limits (a kexec reboot), or it is the same boot after all; they are kept, so a restore
     *     puts the true originals back rather than the agent's cap;</li>
     * <li>none of them is in force any more: the firmware (or driver) reset the limits, and what is in force now is what
     *     must come back; the file is removed;</li>
     * <li>no write of the agent's is recorded (it changed no such limit, or the file is an earlier agent's): another boot
     *     goes by the boot ids (removed); a boot id that cannot be read keeps them, since originals read before the
     *     agent's first write never hold a cap of its own;</li>
     * <li>the limits in force cannot be read (none of the agent's shown, some unreadable): kept, for the same reason.</li>
     * </ul>
     * A store that cannot be read may hold originals the limits in force now are not: this agent process then writes
     * none of the family's limits ({@link #unusable} says why), rather than take a crashed agent's caps for the originals.
     *
     * @param bootId    the kernel's boot id now ({@link #bootId(HostRoots)}); empty when it cannot be read
     * @param limitsNow the family's limits in force now, by the keys of {@link OriginalsKind#limits}; read only when the
     *                  boot ids do not settle it
     * @param log       what was decided and why, one line
     */
    public static <T> KeptOriginals<T> open(OriginalsKind<T> kind, OriginalsStore<T> store, Optional<String> bootId,
                                            InForce<Map<String, Long>> limitsNow, Consumer<String> log) {
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
        if (storedBoot.isPresent() && storedBoot.equals(bootId)) {
            log.accept("Using the " + kind.noun() + " an earlier agent process of this boot kept in " + store.describe()
                    + ": it wrote limits and did not restore them");
            return inherit(kind, store, bootId, stored.get());
        }
        String boots = storedBoot.isPresent() && bootId.isPresent()
                ? "The " + kind.noun() + " in " + store.describe() + " are of boot " + storedBoot.get() + ", this is boot " + bootId.get()
                : "The " + kind.noun() + " in " + store.describe() + " were kept " + storedBoot.map(b -> "in boot " + b)
                        .orElse("when the boot id could not be read") + (bootId.isEmpty() ? ", and the kernel's boot id cannot be read now" : "")
                        + ", so a reboot since cannot be told from the boot ids";
        Verdict verdict = writtenInForce(kind, stored.get(), limitsNow);
        if (verdict.shown()) {
            log.accept(boots + "; but the agent's last write is still in force (" + verdict.detail() + "): the limits were not "
                    + "reset (a restart without the firmware, such as kexec, or the same boot), so they are kept and a restore "
                    + "puts them back");
            return inherit(kind, store, bootId, stored.get());
        }
        if (verdict.unreadable() || verdict.unknown() && (storedBoot.isEmpty() || bootId.isEmpty())) {
            log.accept(boots + (storedBoot.isPresent() && bootId.isPresent() ? "; the limits in force cannot tell (" : ", and the "
                    + "limits in force cannot tell either (") + verdict.detail() + "); they are kept: read before the agent's first "
                    + "write, they never hold a cap of its own");
            return inherit(kind, store, bootId, stored.get());
        }
        String removal;
        try {
            store.clear();
            removal = "removed";
        } catch (IOException e) {
            // stale: its limits are not this boot's originals, and the family goes on
            removal = "not removed (" + e.getMessage() + ")";
        }
        log.accept(boots + (verdict.unknown() ? "; the limits in force cannot tell (" + verdict.detail() + "), so the boot ids "
                + "decide: the node rebooted and " : "; " + verdict.detail() + ": the node rebooted and ") + kind.resetOnReboot()
                + ", so the limits in force now are the originals; the file was " + removal);
        return new KeptOriginals<>(kind, store, bootId, Optional.empty(), Optional.empty());
    }

    private static <T> KeptOriginals<T> inherit(OriginalsKind<T> kind, OriginalsStore<T> store, Optional<String> bootId, Stored<T> stored) {
        KeptOriginals<T> kept = new KeptOriginals<>(kind, store, bootId, Optional.of(stored.originals()), Optional.empty());
        kept.written = stored.written();
        return kept;
    }

    /**
     * What the limits in force say about stored originals: {@code shown} when a limit the agent last wrote, other than
     * its original, is in force; {@code unknown} when nothing tells (no such limit recorded, limits unreadable); else
     * none of them is in force any more.
     */
    private record Verdict(boolean shown, boolean unknown, String detail) {
        /** Nothing shown, and a limit the agent wrote cannot be read. */
        boolean unreadable() {
            return unknown && detail.startsWith(UNREADABLE);
        }
    }

    private static final String UNREADABLE = "cannot read ";

    private static <T> Verdict writtenInForce(OriginalsKind<T> kind, Stored<T> stored, InForce<Map<String, Long>> limitsNow) {
        Map<String, Long> originals = kind.limits().apply(stored.originals());
        Map<String, Long> agents = new TreeMap<>();
        stored.written().forEach((key, value) -> {
            if (originals.containsKey(key) && !originals.get(key).equals(value)) {
                agents.put(key, value);
            }
        });
        if (agents.isEmpty()) {
            return new Verdict(false, true, stored.written().isEmpty() ? "no write of the agent's was recorded"
                    : "the agent's last write left every " + kind.limit() + " at its original");
        }
        Map<String, Long> now;
        try {
            now = limitsNow.read();
        } catch (IOException | RuntimeException e) {
            return new Verdict(false, true, UNREADABLE + "the " + kind.limit() + "s in force: " + e.getMessage());
        }
        List<String> shown = new ArrayList<>();
        List<String> unread = new ArrayList<>();
        agents.forEach((key, value) -> {
            if (value.equals(now.get(key))) {
                shown.add(key + " = " + value);
            } else if (!now.containsKey(key)) {
                unread.add(key);
            }
        });
        if (!shown.isEmpty()) {
            return new Verdict(true, false, String.join(", ", shown));
        }
        if (!unread.isEmpty()) {
            return new Verdict(false, true, UNREADABLE + "the " + kind.limit() + " of " + String.join(", ", unread) + " now");
        }
        return new Verdict(false, false, "none of the " + kind.limit() + "s the agent last wrote (" + agents + ") is in force any "
                + "more (now " + now + ")");
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
            written = Map.of();
        }
    }

    /**
     * Records the limits as the agent's write left them (read back, by the keys of {@link OriginalsKind#limits}), with
     * the kept originals: at the next start they tell a restart that left them in force (kexec) from a reboot that reset
     * them ({@link #open}). Nothing is stored when nothing is held or they are as recorded. Call after every write that
     * changed a limit.
     *
     * @return why they could not be recorded, for the outcome's message; empty when they were
     */
    public Optional<String> afterWrite(Map<String, Long> leftInForce) {
        if (kept.isEmpty() || leftInForce.equals(written) && !unsaved) {
            return Optional.empty();
        }
        // what is in force is what the next record builds on, saved or not; one not saved is tried again at the next call
        written = Map.copyOf(leftInForce);
        try {
            store.save(new Stored<>(bootId, kept.get(), written));
            unsaved = false;
            return Optional.empty();
        } catch (IOException e) {
            unsaved = true;
            return Optional.of("the " + kind.limit() + "s written could not be recorded in " + store.describe() + " (" + e.getMessage()
                    + "), so a restart that keeps them in force (kexec) may take them for the originals");
        }
    }

    /** The limits as the agent's last write left them ({@link #afterWrite}), saved or not; empty before any. */
    public Map<String, Long> written() {
        return written;
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
                written = Map.of();
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
            written = Map.of();
        }
    }

    /** Where they are kept, for messages. */
    public String describe() {
        return store.describe();
    }
}
