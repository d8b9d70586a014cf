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

/** The boards' originals in JOULIE_STATE_DIR, beside the CPU's and written the same way. */
class FileGpuOriginalsTest {
    static final Map<Integer, Long> FOUND = Map.of(0, 700_000L, 1, 350_000L);

    @TempDir
    Path dir;

    final List<String> log = new ArrayList<>();

    FileGpuOriginals store(String bootId) {
        return new FileGpuOriginals(dir.resolve("state"), Optional.ofNullable(bootId), log::add);
    }

    @Test
    void whatIsSavedIsLoadedBackExactlyBesideTheCpusFileAndClearRemovesIt() throws IOException {
        FileGpuOriginals store = store("boot-1");
        assertThat(store.load()).isEmpty();
        new FileOriginalsStore(dir.resolve("state")).save(OriginalsStoreTest.FOUND);
        store.save(FOUND);

        assertThat(store.load()).contains(FOUND);
        assertThat(Files.readString(dir.resolve("state/gpu-originals.json")))
                .contains("\"bootId\" : \"boot-1\"").contains("\"index\" : 1").contains("\"powerLimitMw\" : 350000");
        assertThat(Files.list(dir.resolve("state")).map(p -> p.getFileName().toString()).sorted().toList())
                .as("no temporary file left; the CPU's file untouched").containsExactly("gpu-originals.json", "originals.json");
        store.clear();
        assertThat(store.load()).isEmpty();
        assertThat(new FileOriginalsStore(dir.resolve("state")).load()).contains(OriginalsStoreTest.FOUND);
        store.clear();
    }

    @Test
    void aFileOfAnotherBootIsRemovedAndAFileWithoutABootIdIsUsed() throws IOException {
        store("boot-1").save(FOUND);
        assertThat(store(null).load()).as("the boot id cannot be read: a reboot cannot be told").contains(FOUND);
        assertThat(store("boot-1").load()).contains(FOUND);

        assertThat(store("boot-2").load()).isEmpty();
        assertThat(log.getLast()).isEqualTo("The GPU originals in " + dir.resolve("state/gpu-originals.json") + " are of boot "
                + "boot-1, this is boot boot-2: the node rebooted and the driver reset the boards' limits, so the limits in force "
                + "now are the originals; the file was removed");
        assertThat(dir.resolve("state/gpu-originals.json")).doesNotExist();
    }

    @Test
    void aFileThatIsNotOursIsRefusedWithItsPath() throws IOException {
        Files.createDirectories(dir.resolve("state"));
        Files.writeString(dir.resolve("state/gpu-originals.json"), "{\"format\": 1, \"gpus\": [{\"index\": 0, \"powerLimitMw\": -5}]}");
        assertThatThrownBy(() -> store("boot-1").load()).isInstanceOf(IOException.class)
                .hasMessage(dir.resolve("state/gpu-originals.json") + " is not a GPU originals file of this agent "
                        + "(powerLimitMw is not a whole number >= 0)");
        Files.writeString(dir.resolve("state/gpu-originals.json"), "{\"format\": 2, \"gpus\": []}");
        assertThatThrownBy(() -> store("boot-1").load()).hasMessageContaining("(format 2, expected 1)");
        Files.writeString(dir.resolve("state/gpu-originals.json"), "garbage");
        assertThatThrownBy(() -> store("boot-1").load()).isInstanceOf(IOException.class);
    }
}
