package io.joulie.agent.host;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * {@link GpuOriginals} in {@code <dir>/gpu-originals.json}, beside the CPU's {@code originals.json} in
 * JOULIE_STATE_DIR and written the same way ({@link StateFile}): after a crash at any moment the file holds the old
 * originals or the new ones, never a part. A file of its own, because the families are restored apart (a profile
 * that drops its GPU part gives the boards back while the CPU cap stays). Like the CPU's, the file names the boot it
 * was written in: a file of another boot is removed when loaded, because the driver starts every board at its default
 * limit after a reboot, so what is in force then is what must come back.
 */
public final class FileGpuOriginals implements GpuOriginals {
    static final String FILE = "gpu-originals.json";
    private static final int FORMAT = 1;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final StateFile file;
    private final Optional<String> bootId;
    private final Consumer<String> log;

    /**
     * @param bootId the kernel's boot id now ({@link HostOriginals#bootId}); empty when it cannot be read
     * @param log    what was decided about a file of another boot
     */
    public FileGpuOriginals(Path dir, Optional<String> bootId, Consumer<String> log) {
        this.file = new StateFile(dir, FILE);
        this.bootId = bootId;
        this.log = log;
    }

    @Override
    public String describe() {
        return file.path().toString();
    }

    @Override
    public Optional<Map<Integer, Long>> load() throws IOException {
        Optional<byte[]> bytes = file.read();
        if (bytes.isEmpty()) {
            return Optional.empty();
        }
        JsonNode root;
        Map<Integer, Long> limits = new TreeMap<>();
        try {
            root = JSON.readTree(bytes.get());
            if (root.path("format").asInt() != FORMAT) {
                throw new IOException("format " + root.path("format") + ", expected " + FORMAT);
            }
            for (JsonNode board : FileOriginalsStore.array(root, "gpus")) {
                limits.put((int) FileOriginalsStore.number(board, "index"), FileOriginalsStore.number(board, "powerLimitMw"));
            }
        } catch (IOException | RuntimeException e) {
            throw new IOException(describe() + " is not a GPU originals file of this agent (" + e.getMessage() + ")", e);
        }
        Optional<String> stored = root.path("bootId").isTextual() ? Optional.of(root.path("bootId").asText()) : Optional.empty();
        if (HostOriginals.otherBoot(stored, bootId)) {
            // a file that cannot be removed is still of another boot: its limits are not this boot's originals, and
            // GPU control goes on (as the CPU's originals do)
            String removal;
            try {
                file.delete();
                removal = "removed";
            } catch (IOException e) {
                removal = "not removed (" + e.getMessage() + ")";
            }
            log.accept("The GPU originals in " + describe() + " are of boot " + stored.get() + ", this is boot " + bootId.get()
                    + ": the node rebooted and the driver reset the boards' limits, so the limits in force now are the originals; "
                    + "the file was " + removal);
            return Optional.empty();
        }
        return Optional.of(limits);
    }

    @Override
    public void save(Map<Integer, Long> limitsMw) throws IOException {
        ObjectNode root = JSON.createObjectNode();
        root.put("format", FORMAT);
        root.put("bootId", bootId.orElse(null));
        ArrayNode boards = root.putArray("gpus");
        new TreeMap<>(limitsMw).forEach((index, mw) -> boards.addObject().put("index", index).put("powerLimitMw", mw));
        file.write(JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
    }

    @Override
    public void clear() throws IOException {
        file.delete();
    }
}
