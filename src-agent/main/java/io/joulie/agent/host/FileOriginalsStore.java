package io.joulie.agent.host;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@link Originals} in {@code <dir>/originals.json} (JOULIE_STATE_DIR, a hostPath that outlives the agent's
 * container), replaced whole ({@link StateFile}): after a crash at any moment the file holds either the old
 * originals or the new ones, never a part.
 */
public final class FileOriginalsStore implements OriginalsStore {
    static final String FILE = "originals.json";
    private static final int FORMAT = 1;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final StateFile file;

    public FileOriginalsStore(Path dir) {
        this.file = new StateFile(dir, FILE);
    }

    public Path file() {
        return file.path();
    }

    @Override
    public String describe() {
        return file().toString();
    }

    @Override
    public Optional<Originals> load() throws IOException {
        Optional<byte[]> bytes = file.read();
        if (bytes.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(parse(JSON.readTree(bytes.get())));
        } catch (IOException | RuntimeException e) {
            throw new IOException(file() + " is not an originals file of this agent (" + e.getMessage() + ")", e);
        }
    }

    @Override
    public void save(Originals originals) throws IOException {
        file.write(JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(json(originals)));
    }

    @Override
    public void clear() throws IOException {
        file.delete();
    }

    static ObjectNode json(Originals originals) {
        ObjectNode root = JSON.createObjectNode();
        root.put("format", FORMAT);
        root.put("bootId", originals.bootId().orElse(null));
        ArrayNode limits = root.putArray("powercap");
        for (LimitSnapshot limit : originals.powercap()) {
            limits.addObject().put("zone", limit.zoneId()).put("constraint", limit.constraintIndex())
                    .put("powerLimitUw", limit.powerLimitUw());
        }
        ArrayNode ceilings = root.putArray("cpufreq");
        originals.cpufreqMaxKHz().forEach((policy, kHz) -> ceilings.addObject().put("policy", policy).put("scalingMaxKHz", kHz));
        return root;
    }

    static Originals parse(JsonNode root) throws IOException {
        if (root.path("format").asInt() != FORMAT) {
            throw new IOException("format " + root.path("format") + ", expected " + FORMAT);
        }
        List<LimitSnapshot> limits = new ArrayList<>();
        for (JsonNode limit : array(root, "powercap")) {
            limits.add(new LimitSnapshot(text(limit, "zone"), (int) number(limit, "constraint"), number(limit, "powerLimitUw")));
        }
        Map<Integer, Long> ceilings = new TreeMap<>();
        for (JsonNode ceiling : array(root, "cpufreq")) {
            ceilings.put((int) number(ceiling, "policy"), number(ceiling, "scalingMaxKHz"));
        }
        JsonNode boot = root.path("bootId");
        return new Originals(boot.isTextual() ? Optional.of(boot.asText()) : Optional.empty(), limits, ceilings);
    }

    static JsonNode array(JsonNode root, String field) throws IOException {
        JsonNode array = root.path(field);
        if (!array.isArray()) {
            throw new IOException(field + " is not a list");
        }
        return array;
    }

    static String text(JsonNode node, String field) throws IOException {
        JsonNode value = node.path(field);
        if (!value.isTextual()) {
            throw new IOException(field + " is not a string");
        }
        return value.asText();
    }

    static long number(JsonNode node, String field) throws IOException {
        JsonNode value = node.path(field);
        if (!value.isIntegralNumber() || value.asLong() < 0) {
            throw new IOException(field + " is not a whole number >= 0");
        }
        return value.asLong();
    }
}
