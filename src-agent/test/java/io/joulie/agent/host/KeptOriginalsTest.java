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
        return KeptOriginals.open(OriginalsKind.CPU, store, bootId, log::add);
    }

    @Test
    void theOriginalsOfThisBootWinOthersGo() throws IOException {
        List<String> log = new ArrayList<>();
        OriginalsStore<CpuOriginals> store = OriginalsStore.memory();
        assertThat(open(store, Optional.of("boot-1"), log).kept()).isEmpty();
        assertThat(log).isEmpty();

        store.save(STORED);
        assertThat(open(store, Optional.of("boot-1"), log).kept()).contains(FOUND);
        assertThat(log.getLast()).startsWith("Using the originals an earlier agent process of this boot kept in memory");

        // the boot id cannot be read: a reboot since cannot be told, and the kept originals are used
        assertThat(open(store, Optional.empty(), log).kept()).contains(FOUND);
        assertThat(log.getLast()).contains("the boot id cannot be read");

        // rebooted: the firmware reset the limits, the file must not win, and it goes
        KeptOriginals<CpuOriginals> rebooted = open(store, Optional.of("boot-2"), log);
        assertThat(rebooted.kept()).isEmpty();
        assertThat(rebooted.leftByEarlierProcess()).isFalse();
        assertThat(log.getLast()).contains("are of boot boot-1, this is boot boot-2: the node rebooted").endsWith("the file was removed");
        assertThat(store.load()).isEmpty();
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
