package io.joulie.agent.host;

import io.joulie.agent.host.OriginalsStore.Stored;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The originals' lifecycle, on the CPU's: the decision at start (which originals a new agent process uses), keeping, restoring. */
class KeptOriginalsTest {
    static final CpuOriginals FOUND = new CpuOriginals(
            List.of(new LimitSnapshot("intel-rapl:0", 0, 200_000_000), new LimitSnapshot("intel-rapl:1", 0, 180_000_000)),
            Map.of(0, 3_500_000L, 2, 3_000_000L));
    static final Stored<CpuOriginals> STORED = new Stored<>(Optional.of("boot-1"), FOUND);

    @TempDir
    Path dir;

    static KeptOriginals<CpuOriginals> open(OriginalsStore<CpuOriginals> store, Optional<String> bootId, List<String> log) {
        return open(store, bootId, () -> {
            throw new IOException("no powercap here");
        }, log);
    }

    static KeptOriginals<CpuOriginals> open(OriginalsStore<CpuOriginals> store, Optional<String> bootId,
                                            KeptOriginals.InForce<Map<String, Long>> limitsNow, List<String> log) {
        return KeptOriginals.open(OriginalsKind.CPU, store, bootId, limitsNow, log::add);
    }

    /** Kept in boot-1 (or with no boot id), with the agent's last write: 60 W on package 0, package 1 left at its 180 W. */
    static Stored<CpuOriginals> afterAnEcoWrite(Optional<String> bootId) {
        return new Stored<>(bootId, FOUND, Map.of("intel-rapl:0", 60_000_000L, "intel-rapl:1", 180_000_000L));
    }

    static final Map<String, Long> ECO_IN_FORCE = Map.of("intel-rapl:0", 60_000_000L, "intel-rapl:1", 180_000_000L);
    static final Map<String, Long> FIRMWARE_IN_FORCE = Map.of("intel-rapl:0", 200_000_000L, "intel-rapl:1", 200_000_000L);

    @Test
    void theOriginalsOfThisBootWinOthersGo() throws IOException {
        List<String> log = new ArrayList<>();
        OriginalsStore<CpuOriginals> store = OriginalsStore.memory();
        assertThat(open(store, Optional.of("boot-1"), log).kept()).isEmpty();
        assertThat(log).isEmpty();

        store.save(STORED);
        assertThat(open(store, Optional.of("boot-1"), log).kept()).contains(FOUND);
        assertThat(log.getLast()).startsWith("Using the originals an earlier agent process of this boot kept in memory");

        // the boot id cannot be read and no write was recorded: nothing tells, and originals are never the agent's caps
        assertThat(open(store, Optional.empty(), log).kept()).contains(FOUND);
        assertThat(log.getLast()).contains("the kernel's boot id cannot be read now")
                .contains("the limits in force cannot tell either (no write of the agent's was recorded); they are kept");

        // rebooted, and no write recorded (a file of an earlier agent version): the boot ids decide, and the file goes
        KeptOriginals<CpuOriginals> rebooted = open(store, Optional.of("boot-2"), log);
        assertThat(rebooted.kept()).isEmpty();
        assertThat(rebooted.leftByEarlierProcess()).isFalse();
        assertThat(log.getLast()).contains("are of boot boot-1, this is boot boot-2; the limits in force cannot tell (no write of "
                + "the agent's was recorded), so the boot ids decide: the node rebooted").endsWith("the file was removed");
        assertThat(store.load()).isEmpty();
    }

    /**
     * kexec: a new boot id, but the firmware did not run and the agent's eco cap is still in the RAPL registers. The
     * stored originals stay (the restore puts them back), not the cap in force.
     */
    @Test
    void aNewBootWithTheAgentsWriteStillInForceKeepsTheOriginals() throws IOException {
        List<String> log = new ArrayList<>();
        OriginalsStore<CpuOriginals> store = OriginalsStore.memory();
        store.save(afterAnEcoWrite(Optional.of("boot-1")));
        KeptOriginals<CpuOriginals> kexec = open(store, Optional.of("boot-2"), () -> ECO_IN_FORCE, log);
        assertThat(kexec.kept()).contains(FOUND);
        assertThat(kexec.leftByEarlierProcess()).isTrue();
        assertThat(kexec.written()).isEqualTo(ECO_IN_FORCE);
        assertThat(log.getLast()).isEqualTo("The originals in memory are of boot boot-1, this is boot boot-2; but the agent's last "
                + "write is still in force (intel-rapl:0 = 60000000): the limits were not reset (a restart without the firmware, "
                + "such as kexec, or the same boot), so they are kept and a restore puts them back");
        assertThat(store.load()).contains(afterAnEcoWrite(Optional.of("boot-1")));
    }

    /** A real reboot: the firmware's limits replaced the agent's write, so they are the originals and the file goes. */
    @Test
    void aNewBootWithoutTheAgentsWriteInForceDropsTheOriginals() throws IOException {
        List<String> log = new ArrayList<>();
        OriginalsStore<CpuOriginals> store = OriginalsStore.memory();
        store.save(afterAnEcoWrite(Optional.of("boot-1")));
        KeptOriginals<CpuOriginals> rebooted = open(store, Optional.of("boot-2"), () -> FIRMWARE_IN_FORCE, log);
        assertThat(rebooted.kept()).isEmpty();
        assertThat(log.getLast()).startsWith("The originals in memory are of boot boot-1, this is boot boot-2; none of the limits the "
                + "agent last wrote ({intel-rapl:0=60000000}) is in force any more").contains("its firmware reset the limits")
                .endsWith("the file was removed");
        assertThat(store.load()).isEmpty();
    }

    /**
     * A boot id that cannot be read, now or when the file was saved, no longer keeps a file for ever: the limits in force
     * decide, as for another boot.
     */
    @Test
    void withoutABootIdTheLimitsInForceDecide() throws IOException {
        List<String> log = new ArrayList<>();
        OriginalsStore<CpuOriginals> store = OriginalsStore.memory();
        store.save(afterAnEcoWrite(Optional.empty()));
        assertThat(open(store, Optional.of("boot-2"), () -> ECO_IN_FORCE, log).kept()).contains(FOUND);
        assertThat(log.getLast()).startsWith("The originals in memory were kept when the boot id could not be read, so a reboot "
                + "since cannot be told from the boot ids; but the agent's last write is still in force");
        assertThat(open(store, Optional.empty(), () -> ECO_IN_FORCE, log).kept()).contains(FOUND);
        assertThat(log.getLast()).contains("and the kernel's boot id cannot be read now");

        // saved without a boot id, and the firmware has reset the limits since: stale, removed
        assertThat(open(store, Optional.of("boot-2"), () -> FIRMWARE_IN_FORCE, log).kept()).isEmpty();
        assertThat(log.getLast()).contains("none of the limits the agent last wrote").endsWith("the file was removed");
        assertThat(store.load()).isEmpty();

        // unreadable now, reset since: removed too
        store.save(afterAnEcoWrite(Optional.of("boot-1")));
        assertThat(open(store, Optional.empty(), () -> FIRMWARE_IN_FORCE, log).kept()).isEmpty();
        assertThat(store.load()).isEmpty();

        // unreadable now, and the limits cannot be read either: kept
        store.save(afterAnEcoWrite(Optional.of("boot-1")));
        assertThat(open(store, Optional.empty(), log).kept()).contains(FOUND);
        assertThat(log.getLast()).contains("the limits in force cannot tell either (cannot read the limits in force: no powercap here)");

        // another boot, and package 0's limit cannot be read: nothing shows the firmware reset them, kept
        assertThat(open(store, Optional.of("boot-2"), () -> Map.of("intel-rapl:1", 200_000_000L), log).kept()).contains(FOUND);
        assertThat(log.getLast()).contains("cannot read the limit of intel-rapl:0 now); they are kept");
    }

    /** The same boot never needs the hardware's word: a crash, the firmware did not run. */
    @Test
    void theSameBootKeepsTheOriginalsWithoutReadingTheLimits() throws IOException {
        OriginalsStore<CpuOriginals> store = OriginalsStore.memory();
        store.save(afterAnEcoWrite(Optional.of("boot-1")));
        assertThat(open(store, Optional.of("boot-1"), () -> {
            throw new AssertionError("read the limits although the boot ids settle it");
        }, new ArrayList<>()).kept()).contains(FOUND);
    }

    /** After each write the limits it left are stored with the originals, once per change; a failing store is said. */
    @Test
    void theLimitsWrittenAreRecordedWithTheOriginals() throws IOException {
        List<Stored<CpuOriginals>> saves = new ArrayList<>();
        boolean[] broken = {false};
        OriginalsStore<CpuOriginals> memory = OriginalsStore.memory();
        OriginalsStore<CpuOriginals> store = new OriginalsStore<>() {
            @Override
            public Optional<Stored<CpuOriginals>> load() throws IOException {
                return memory.load();
            }

            @Override
            public void save(Stored<CpuOriginals> stored) throws IOException {
                if (broken[0]) {
                    throw new IOException("disk full");
                }
                saves.add(stored);
                memory.save(stored);
            }

            @Override
            public void clear() throws IOException {
                memory.clear();
            }

            @Override
            public String describe() {
                return "the test's store";
            }
        };
        KeptOriginals<CpuOriginals> kept = open(store, Optional.of("boot-1"), new ArrayList<>());
        assertThat(kept.afterWrite(ECO_IN_FORCE)).as("nothing held: nothing recorded").isEmpty();
        assertThat(saves).isEmpty();
        kept.beforeWrite(() -> FOUND);
        assertThat(kept.afterWrite(ECO_IN_FORCE)).isEmpty();
        assertThat(kept.afterWrite(ECO_IN_FORCE)).isEmpty();
        assertThat(saves).containsExactly(new Stored<>(Optional.of("boot-1"), FOUND), afterAnEcoWrite(Optional.of("boot-1")));
        broken[0] = true;
        assertThat(kept.afterWrite(FIRMWARE_IN_FORCE)).hasValue("the limits written could not be recorded in the test's store "
                + "(disk full), so a restart that keeps them in force (kexec) may take them for the originals");
        assertThat(saves).hasSize(2);
        broken[0] = false;
        assertThat(kept.afterWrite(FIRMWARE_IN_FORCE)).as("not saved last time: saved now, though nothing changed").isEmpty();
        assertThat(saves.getLast()).isEqualTo(new Stored<>(Optional.of("boot-1"), FOUND, FIRMWARE_IN_FORCE));
        kept.restored();
        assertThat(kept.written()).isEmpty();
        assertThat(memory.load()).isEmpty();
    }

    /**
     * A store that cannot be read may hold the originals, while what is in force may be a crashed agent's caps: the
     * agent process writes nothing (and says why), rather than take those caps for the originals and overwrite the file.
     */
    @Test
    void anUnreadableStoreStopsEveryWrite() throws IOException {
        Files.writeString(dir.resolve("originals.json"), "garbage");
        List<String> log = new ArrayList<>();
        FileOriginalsStore<CpuOriginals> store = new FileOriginalsStore<>(dir, OriginalsKind.CPU);
        KeptOriginals<CpuOriginals> kept = open(store, Optional.of("boot-1"), log);
        assertThat(kept.kept()).isEmpty();
        assertThat(kept.unusable()).hasValueSatisfying(why -> assertThat(why).startsWith("the originals in "
                + dir.resolve("originals.json") + " cannot be read").contains("this agent writes no limit until"));
        assertThat(log).containsExactly(kept.unusable().get());
        assertThatThrownBy(() -> kept.beforeWrite(() -> CpuOriginals.inForce(Powercap.absent(), Cpufreq.absent())))
                .isInstanceOf(IOException.class).hasMessage(kept.unusable().get());
        assertThat(Files.readString(dir.resolve("originals.json"))).isEqualTo("garbage");
    }

    /**
     * Read again before the first write since the start or the last restore: what someone set while the agent held
     * nothing is what comes back, not what the agent found when it started.
     */
    @Test
    void readAgainAndSavedBeforeTheFirstWriteAndRemovedAfterARestore() throws IOException {
        Path sys = Path.of("/sys");
        Path zone = sys.resolve("class/powercap/intel-rapl:0");
        Path limit = zone.resolve("constraint_0_power_limit_uw");
        Path policy = sys.resolve("devices/system/cpu/cpufreq/policy0");
        MemorySysfs files = new MemorySysfs().put(zone.resolve("name"), "package-0").put(zone.resolve("constraint_0_name"), "long_term")
                .put(limit, 200_000_000).put(zone.resolve("constraint_0_max_power_uw"), 250_000_000)
                .put(policy.resolve("cpuinfo_min_freq"), 800_000).put(policy.resolve("cpuinfo_max_freq"), 3_500_000)
                .put(policy.resolve("scaling_max_freq"), 3_500_000);
        Powercap powercap = SysfsPowercap.open(sys, files, Msr.absent());
        Cpufreq cpufreq = SysfsCpufreq.open(sys, files);
        OriginalsStore<CpuOriginals> store = OriginalsStore.memory();
        KeptOriginals<CpuOriginals> kept = open(store, Optional.of("boot-1"), new ArrayList<>());
        assertThat(kept.leftByEarlierProcess()).isFalse();
        KeptOriginals.InForce<CpuOriginals> inForce = () -> CpuOriginals.inForce(powercap, cpufreq);

        files.put(limit, 150_000_000).put(policy.resolve("scaling_max_freq"), 3_000_000); // set by hand after the agent started
        kept.beforeWrite(inForce);
        Stored<CpuOriginals> first = new Stored<>(Optional.of("boot-1"),
                new CpuOriginals(List.of(new LimitSnapshot("intel-rapl:0", 0, 150_000_000)), Map.of(0, 3_000_000L)));
        assertThat(store.load()).contains(first);
        files.put(limit, 60_000_000); // the agent's cap
        kept.beforeWrite(inForce); // saved already: not read again
        assertThat(store.load()).contains(first);

        assertThat(powercap.restore().outcome()).isEqualTo(CapResult.Outcome.APPLIED);
        kept.restored();
        assertThat(store.load()).isEmpty();
        assertThat(files.get(limit)).isEqualTo("150000000");

        store.save(first);
        KeptOriginals<CpuOriginals> inherited = open(store, Optional.of("boot-1"), new ArrayList<>());
        assertThat(inherited.leftByEarlierProcess()).isTrue();
        inherited.beforeWrite(inForce); // stored already: what is in force now (perhaps the dead agent's cap) is not read
        assertThat(store.load()).contains(first);
        inherited.restored();
        assertThat(inherited.leftByEarlierProcess()).isFalse();
        assertThat(store.load()).isEmpty();
    }

    @Test
    void theBootIdIsReadFromTheHostsProcfs() throws IOException {
        HostRoots roots = HostRoots.under(dir);
        assertThat(KeptOriginals.bootId(roots)).isEmpty();
        Files.createDirectories(dir.resolve("proc/sys/kernel/random"));
        Files.writeString(dir.resolve("proc/sys/kernel/random/boot_id"), "0a1b2c3d-0000-4000-8000-000000000001\n");
        assertThat(KeptOriginals.bootId(roots)).contains("0a1b2c3d-0000-4000-8000-000000000001");
    }
}
