package io.joulie.agent.host;

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

/** The originals file in JOULIE_STATE_DIR and the decision at start: which originals a new agent process uses. */
class OriginalsStoreTest {
    static final Originals FOUND = new Originals(Optional.of("boot-1"),
            List.of(new LimitSnapshot("intel-rapl:0", 0, 200_000_000), new LimitSnapshot("intel-rapl:1", 0, 180_000_000)),
            Map.of(0, 3_500_000L, 2, 3_000_000L));

    @TempDir
    Path dir;

    @Test
    void whatIsSavedIsLoadedBackExactlyAndClearRemovesIt() throws IOException {
        FileOriginalsStore store = new FileOriginalsStore(dir.resolve("state"));
        assertThat(store.load()).isEmpty();
        store.save(FOUND);
        assertThat(store.load()).contains(FOUND);
        assertThat(Files.list(dir.resolve("state")).map(p -> p.getFileName().toString()).toList())
                .as("no temporary file left after the rename").containsExactly("originals.json");
        store.clear();
        assertThat(store.load()).isEmpty();
        store.clear();
    }

    /** A crash between writing the temporary file and the rename leaves the old file whole. */
    @Test
    void aSaveCutShortLeavesTheEarlierOriginals() throws IOException {
        FileOriginalsStore store = new FileOriginalsStore(dir);
        store.save(FOUND);
        Files.writeString(dir.resolve("originals.json.tmp"), "{\"format\": 1, \"bootId\": \"boot-1\", \"powercap\": [{\"zo");
        assertThat(store.load()).contains(FOUND);
        Originals next = new Originals(Optional.of("boot-1"), List.of(new LimitSnapshot("intel-rapl:0", 0, 1)), Map.of());
        store.save(next);
        assertThat(store.load()).contains(next);
    }

    @Test
    void aFileThatIsNotOursIsRefusedWithItsPath() throws IOException {
        FileOriginalsStore store = new FileOriginalsStore(dir);
        Files.writeString(dir.resolve("originals.json"), "{\"format\": 1, \"bootId\": \"b\", \"powercap\": [{\"zone\": 3}], \"cpufreq\": []}");
        assertThatThrownBy(store::load).isInstanceOf(IOException.class)
                .hasMessageStartingWith(dir.resolve("originals.json") + " is not an originals file of this agent (zone is not a string)");
        Files.writeString(dir.resolve("originals.json"), "garbage");
        assertThatThrownBy(store::load).isInstanceOf(IOException.class);
    }

    @Test
    void theOriginalsOfThisBootWinOthersGo() throws IOException {
        List<String> log = new ArrayList<>();
        OriginalsStore store = OriginalsStore.memory();
        assertThat(HostOriginals.inherited(store, Optional.of("boot-1"), log::add)).isEqualTo(HostOriginals.Start.NOTHING);
        assertThat(log).isEmpty();

        store.save(FOUND);
        assertThat(HostOriginals.inherited(store, Optional.of("boot-1"), log::add).inherited()).contains(FOUND);
        assertThat(log.getLast()).startsWith("Using the originals an earlier agent process of this boot kept in memory");

        // the boot id cannot be read: a reboot since cannot be told, and the kept originals are used
        assertThat(HostOriginals.inherited(store, Optional.empty(), log::add).inherited()).contains(FOUND);
        assertThat(log.getLast()).contains("the boot id cannot be read");

        // rebooted: the firmware reset the limits, the file must not win, and it goes
        assertThat(HostOriginals.inherited(store, Optional.of("boot-2"), log::add)).isEqualTo(HostOriginals.Start.NOTHING);
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
        FileOriginalsStore store = new FileOriginalsStore(dir);
        HostOriginals.Start start = HostOriginals.inherited(store, Optional.of("boot-1"), log::add);
        assertThat(start.inherited()).isEmpty();
        assertThat(start.unusable()).hasValueSatisfying(why -> assertThat(why).startsWith("the originals in "
                + dir.resolve("originals.json") + " cannot be read").contains("this agent writes no limit until"));
        assertThat(log).containsExactly(start.unusable().get());
        HostOriginals kept = new HostOriginals(store, Optional.of("boot-1"), Powercap.absent(), Cpufreq.absent(), start);
        assertThatThrownBy(kept::beforeWrite).isInstanceOf(IOException.class).hasMessage(start.unusable().get());
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
        OriginalsStore store = OriginalsStore.memory();
        HostOriginals kept = new HostOriginals(store, Optional.of("boot-1"), powercap, cpufreq, HostOriginals.Start.NOTHING);
        assertThat(kept.leftByEarlierProcess()).isFalse();

        files.put(limit, 150_000_000).put(policy.resolve("scaling_max_freq"), 3_000_000); // set by hand after the agent started
        kept.beforeWrite();
        Originals first = new Originals(Optional.of("boot-1"), List.of(new LimitSnapshot("intel-rapl:0", 0, 150_000_000)), Map.of(0, 3_000_000L));
        assertThat(store.load()).contains(first);
        files.put(limit, 60_000_000); // the agent's cap
        kept.beforeWrite(); // saved already: not read again
        assertThat(store.load()).contains(first);

        assertThat(powercap.restore().outcome()).isEqualTo(CapResult.Outcome.APPLIED);
        kept.restored();
        assertThat(store.load()).isEmpty();
        assertThat(files.get(limit)).isEqualTo("150000000");

        store.save(first);
        HostOriginals inherited = new HostOriginals(store, Optional.of("boot-1"), powercap, cpufreq,
                new HostOriginals.Start(Optional.of(first), Optional.empty()));
        assertThat(inherited.leftByEarlierProcess()).isTrue();
        inherited.beforeWrite(); // stored already: what is in force now (perhaps the dead agent's cap) is not read
        assertThat(store.load()).contains(first);
        inherited.restored();
        assertThat(inherited.leftByEarlierProcess()).isFalse();
        assertThat(store.load()).isEmpty();
    }

    @Test
    void theBootIdIsReadFromTheHostsProcfs() throws IOException {
        HostRoots roots = HostRoots.under(dir);
        assertThat(HostOriginals.bootId(roots)).isEmpty();
        Files.createDirectories(dir.resolve("proc/sys/kernel/random"));
        Files.writeString(dir.resolve("proc/sys/kernel/random/boot_id"), "0a1b2c3d-0000-4000-8000-000000000001\n");
        assertThat(HostOriginals.bootId(roots)).contains("0a1b2c3d-0000-4000-8000-000000000001");
    }
}
