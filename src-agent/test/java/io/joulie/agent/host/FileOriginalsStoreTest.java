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

/** The CPU's and the boards' originals in JOULIE_STATE_DIR, side by side and written the same way. */
class FileOriginalsStoreTest {
    static final Map<Integer, Long> FOUND = Map.of(0, 700_000L, 1, 350_000L);

    @TempDir
    Path dir;

    final List<String> log = new ArrayList<>();

    FileOriginalsStore<Map<Integer, Long>> gpuStore() {
        return new FileOriginalsStore<>(dir.resolve("state"), OriginalsKind.GPU);
    }

    FileOriginalsStore<CpuOriginals> cpuStore(Path in) {
        return new FileOriginalsStore<>(in, OriginalsKind.CPU);
    }

    /** What an agent process with boot id {@code bootId} takes over from the GPU file at start. */
    Optional<Map<Integer, Long>> inherited(String bootId) {
        return KeptOriginals.open(OriginalsKind.GPU, gpuStore(), Optional.ofNullable(bootId), () -> {
            throw new IOException("no boards here");
        }, log::add).kept();
    }

    /** An agent upgraded in place finds the originals its predecessor kept: both files, as earlier agents wrote them. */
    @Test
    void theFilesEarlierAgentsWroteAreRead() throws IOException {
        Files.createDirectories(dir.resolve("state"));
        Files.writeString(dir.resolve("state/originals.json"), """
                {
                  "format" : 1,
                  "bootId" : "boot-1",
                  "powercap" : [ {
                    "zone" : "intel-rapl:0",
                    "constraint" : 0,
                    "powerLimitUw" : 200000000
                  }, {
                    "zone" : "intel-rapl:1",
                    "constraint" : 0,
                    "powerLimitUw" : 180000000
                  } ],
                  "cpufreq" : [ {
                    "policy" : 0,
                    "scalingMaxKHz" : 3500000
                  }, {
                    "policy" : 2,
                    "scalingMaxKHz" : 3000000
                  } ]
                }""");
        Files.writeString(dir.resolve("state/gpu-originals.json"), """
                {
                  "format" : 1,
                  "bootId" : null,
                  "gpus" : [ {
                    "index" : 0,
                    "powerLimitMw" : 700000
                  }, {
                    "index" : 1,
                    "powerLimitMw" : 350000
                  } ]
                }""");
        String cpuBefore = Files.readString(dir.resolve("state/originals.json"));

        assertThat(cpuStore(dir.resolve("state")).load()).contains(KeptOriginalsTest.STORED);
        assertThat(gpuStore().load()).contains(new Stored<>(Optional.empty(), FOUND));
        cpuStore(dir.resolve("state")).save(KeptOriginalsTest.STORED);
        assertThat(Files.readString(dir.resolve("state/originals.json"))).as("written as before, byte for byte").isEqualTo(cpuBefore);
    }

    @Test
    void whatIsSavedIsLoadedBackExactlyAndClearRemovesIt() throws IOException {
        FileOriginalsStore<CpuOriginals> store = cpuStore(dir.resolve("state"));
        assertThat(store.load()).isEmpty();
        store.save(KeptOriginalsTest.STORED);
        assertThat(store.load()).contains(KeptOriginalsTest.STORED);
        assertThat(Files.list(dir.resolve("state")).map(p -> p.getFileName().toString()).toList())
                .as("no temporary file left after the rename").containsExactly("originals.json");
        store.clear();
        assertThat(store.load()).isEmpty();
        store.clear();
    }

    /** A crash between writing the temporary file and the rename leaves the old file whole. */
    /** The limits the agent's last write left are kept with the originals, by key, and read back exactly. */
    @Test
    void theLimitsWrittenAreSavedWithTheOriginals() throws IOException {
        FileOriginalsStore<CpuOriginals> store = cpuStore(dir);
        Stored<CpuOriginals> afterWrite = KeptOriginalsTest.afterAnEcoWrite(Optional.of("boot-1"));
        store.save(afterWrite);
        assertThat(store.load()).contains(afterWrite);
        assertThat(Files.readString(dir.resolve("originals.json"))).contains("\"written\" : {\n    \"intel-rapl:0\" : 60000000,");
        Files.writeString(dir.resolve("originals.json"), Files.readString(dir.resolve("originals.json")).replace("60000000", "\"sixty\""));
        assertThatThrownBy(store::load).hasMessageStartingWith(dir.resolve("originals.json") + " is not an originals file of this agent "
                + "(intel-rapl:0 is not a whole number >= 0)");
    }

    @Test
    void aSaveCutShortLeavesTheEarlierOriginals() throws IOException {
        FileOriginalsStore<CpuOriginals> store = cpuStore(dir);
        store.save(KeptOriginalsTest.STORED);
        Files.writeString(dir.resolve("originals.json.tmp"), "{\"format\": 1, \"bootId\": \"boot-1\", \"powercap\": [{\"zo");
        assertThat(store.load()).contains(KeptOriginalsTest.STORED);
        Stored<CpuOriginals> next = new Stored<>(Optional.of("boot-1"), new CpuOriginals(List.of(new LimitSnapshot("intel-rapl:0", 0, 1)), Map.of()));
        store.save(next);
        assertThat(store.load()).contains(next);
    }

    @Test
    void aCpuFileThatIsNotOursIsRefusedWithItsPath() throws IOException {
        FileOriginalsStore<CpuOriginals> store = cpuStore(dir);
        Files.writeString(dir.resolve("originals.json"), "{\"format\": 1, \"bootId\": \"b\", \"powercap\": [{\"zone\": 3}], \"cpufreq\": []}");
        assertThatThrownBy(store::load).isInstanceOf(IOException.class)
                .hasMessageStartingWith(dir.resolve("originals.json") + " is not an originals file of this agent (zone is not a string)");
        Files.writeString(dir.resolve("originals.json"), "garbage");
        assertThatThrownBy(store::load).isInstanceOf(IOException.class);
    }


    @Test
    void whatIsSavedIsLoadedBackExactlyBesideTheCpusFileAndClearRemovesIt() throws IOException {
        FileOriginalsStore<Map<Integer, Long>> store = gpuStore();
        assertThat(store.load()).isEmpty();
        cpuStore(dir.resolve("state")).save(KeptOriginalsTest.STORED);
        store.save(new Stored<>(Optional.of("boot-1"), FOUND));

        assertThat(store.load()).contains(new Stored<>(Optional.of("boot-1"), FOUND));
        assertThat(Files.readString(dir.resolve("state/gpu-originals.json")))
                .contains("\"bootId\" : \"boot-1\"").contains("\"index\" : 1").contains("\"powerLimitMw\" : 350000");
        assertThat(Files.list(dir.resolve("state")).map(p -> p.getFileName().toString()).sorted().toList())
                .as("no temporary file left; the CPU's file untouched").containsExactly("gpu-originals.json", "originals.json");
        store.clear();
        assertThat(store.load()).isEmpty();
        assertThat(cpuStore(dir.resolve("state")).load()).contains(KeptOriginalsTest.STORED);
        store.clear();
    }

    @Test
    void aFileOfAnotherBootIsRemovedAndAFileWithoutABootIdIsUsed() throws IOException {
        gpuStore().save(new Stored<>(Optional.of("boot-1"), FOUND));
        assertThat(inherited(null)).as("the boot id cannot be read: a reboot cannot be told").contains(FOUND);
        assertThat(inherited("boot-1")).contains(FOUND);

        assertThat(inherited("boot-2")).isEmpty();
        assertThat(log.getLast()).isEqualTo("The GPU originals in " + dir.resolve("state/gpu-originals.json") + " are of boot "
                + "boot-1, this is boot boot-2; the limits in force cannot tell (no write of the agent's was recorded), so the boot ids "
                + "decide: the node rebooted and the driver reset the boards' limits, so the limits in force "
                + "now are the originals; the file was removed");
        assertThat(dir.resolve("state/gpu-originals.json")).doesNotExist();
    }

    @Test
    void aGpuFileThatIsNotOursIsRefusedWithItsPath() throws IOException {
        Files.createDirectories(dir.resolve("state"));
        Files.writeString(dir.resolve("state/gpu-originals.json"), "{\"format\": 1, \"gpus\": [{\"index\": 0, \"powerLimitMw\": -5}]}");
        assertThatThrownBy(() -> gpuStore().load()).isInstanceOf(IOException.class)
                .hasMessage(dir.resolve("state/gpu-originals.json") + " is not a GPU originals file of this agent "
                        + "(powerLimitMw is not a whole number >= 0)");
        Files.writeString(dir.resolve("state/gpu-originals.json"), "{\"format\": 2, \"gpus\": []}");
        assertThatThrownBy(() -> gpuStore().load()).hasMessageContaining("(format 2, expected 1)");
        Files.writeString(dir.resolve("state/gpu-originals.json"), "garbage");
        assertThatThrownBy(() -> gpuStore().load()).isInstanceOf(IOException.class);
    }
}
