package io.joulie.agent.host;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A family's originals in {@code <dir>/<file>} (JOULIE_STATE_DIR, a hostPath that outlives the agent's container:
 * {@code originals.json} for the CPU, {@code gpu-originals.json} for the boards), replaced whole ({@link StateFile}):
 * after a crash at any moment the file holds either the old originals or the new ones, never a part. The file is a
 * JSON object with {@code format} (1), {@code bootId}, {@code written} (the limits the agent's last write left, by key;
 * absent before the first write is recorded and in files of earlier agents) and the family's fields ({@link OriginalsKind}).
 */
public final class FileOriginalsStore<T> implements OriginalsStore<T> {
    private static final int FORMAT = 1;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final StateFile file;
    private final OriginalsKind<T> kind;

    public FileOriginalsStore(Path dir, OriginalsKind<T> kind) {
        this.file = new StateFile(dir, kind.file());
        this.kind = kind;
    }

    @Override
    public String describe() {
        return file.path().toString();
    }

    @Override
    public Optional<Stored<T>> load() throws IOException {
        Optional<byte[]> bytes = file.read();
        if (bytes.isEmpty()) {
            return Optional.empty();
        }
        try {
            JsonNode root = JSON.readTree(bytes.get());
            if (root.path("format").asInt() != FORMAT) {
                throw new IOException("format " + root.path("format") + ", expected " + FORMAT);
            }
            T originals = kind.reader().read(root);
            JsonNode boot = root.path("bootId");
            Map<String, Long> written = new TreeMap<>();
            JsonNode last = root.path("written");
            if (!last.isMissingNode()) {
                if (!last.isObject()) {
                    throw new IOException("written is not an object");
                }
                for (Map.Entry<String, JsonNode> limit : last.properties()) {
                    written.put(limit.getKey(), number(last, limit.getKey()));
                }
            }
            return Optional.of(new Stored<>(boot.isTextual() ? Optional.of(boot.asText()) : Optional.empty(), originals, written));
        } catch (IOException | RuntimeException e) {
            throw new IOException(describe() + " is not " + kind.aFile() + " of this agent (" + e.getMessage() + ")", e);
        }
    }

    @Override
    public void save(Stored<T> originals) throws IOException {
        ObjectNode root = JSON.createObjectNode();
        root.put("format", FORMAT);
        root.put("bootId", originals.bootId().orElse(null));
        if (!originals.written().isEmpty()) {
            ObjectNode written = root.putObject("written");
            new TreeMap<>(originals.written()).forEach(written::put);
        }
        kind.writer().write(originals.originals(), root);
        file.write(JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
    }

    @Override
    public void clear() throws IOException {
        file.delete();
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
