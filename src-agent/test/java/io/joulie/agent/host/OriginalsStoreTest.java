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
        assertThat(HostOriginals.inherited(store, Optional.of("boot-1"), log::add)).isEmpty();
        assertThat(log).isEmpty();

        store.save(FOUND);
        assertThat(HostOriginals.inherited(store, Optional.of("boot-1"), log::add)).contains(FOUND);
        assertThat(log.getLast()).startsWith("Using the originals an earlier agent process of this boot kept in memory");

        // the boot id cannot be read: a reboot since cannot be told, and the kept originals are used
        assertThat(HostOriginals.inherited(store, Optional.empty(), log::add)).contains(FOUND);
        assertThat(log.getLast()).contains("the boot id cannot be read");

        // rebooted: the firmware reset the limits, the file must not win, and it goes
        assertThat(HostOriginals.inherited(store, Optional.of("boot-2"), log::add)).isEmpty();
        assertThat(log.getLast()).contains("are of boot boot-1, this is boot boot-2: the node rebooted").endsWith("the file was removed");
        assertThat(store.load()).isEmpty();
    }

    @Test
    void anUnreadableFileIsReportedAndTheLimitsInForceAreTheOriginals() throws IOException {
        Files.writeString(dir.resolve("originals.json"), "garbage");
        List<String> log = new ArrayList<>();
        assertThat(HostOriginals.inherited(new FileOriginalsStore(dir), Optional.of("boot-1"), log::add)).isEmpty();
        assertThat(log).singleElement().asString().startsWith("The originals in " + dir.resolve("originals.json") + " cannot be used");
    }

    @Test
    void savedOnceBeforeTheFirstWriteAndRemovedAfterARestore() throws IOException {
        OriginalsStore store = OriginalsStore.memory();
        HostOriginals fresh = new HostOriginals(store, FOUND, false);
        assertThat(fresh.leftByEarlierProcess()).isFalse();
        fresh.beforeWrite();
        assertThat(store.load()).contains(FOUND);
        store.save(new Originals(Optional.of("boot-1"), List.of(), Map.of()));
        fresh.beforeWrite(); // saved already: not written again
        assertThat(store.load().orElseThrow().powercap()).isEmpty();
        fresh.restored();
        assertThat(store.load()).isEmpty();

        store.save(FOUND);
        HostOriginals inherited = new HostOriginals(store, FOUND, true);
        assertThat(inherited.leftByEarlierProcess()).isTrue();
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
