package io.joulie.agent.host;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

import static io.joulie.agent.host.FileOriginalsStore.array;
import static io.joulie.agent.host.FileOriginalsStore.number;
import static io.joulie.agent.host.FileOriginalsStore.text;

/**
 * One family's originals as {@link KeptOriginals} and {@link FileOriginalsStore} handle them: the words for messages,
 * the file in JOULIE_STATE_DIR and the fields it holds beside {@code format} and {@code bootId}. A file per family,
 * because the families are restored apart (a profile that drops its GPU part gives the boards back while the CPU cap
 * stays): each family's restore removes exactly its own.
 *
 * @param noun          what they are called in messages ({@code originals}, {@code GPU originals})
 * @param aFile         what the file is called in messages ({@code an originals file})
 * @param limit         what is not written while they cannot be read ({@code limit}, {@code GPU limit})
 * @param resetOnReboot what put the limits back at their defaults when the node rebooted
 * @param file          the file's name in JOULIE_STATE_DIR
 * @param limits        the originals' limits that a kexec restart leaves in force, by key (a package zone's id, a
 *                      board's index), for the test at start ({@link KeptOriginals#open}): the RAPL limits (hardware
 *                      registers that only the firmware resets), not the cpufreq ceilings (kernel state, which every
 *                      boot resets)
 * @param <T>           the family's originals
 */
public record OriginalsKind<T>(String noun, String aFile, String limit, String resetOnReboot, String file, Writer<T> writer,
                               Reader<T> reader, Function<T, Map<String, Long>> limits) {
    /** Writes the family's fields into the file's root object. */
    @FunctionalInterface
    public interface Writer<T> {
        void write(T originals, ObjectNode root);
    }

    /** Reads the family's fields from the file's root object; an IOException names what is wrong. */
    @FunctionalInterface
    public interface Reader<T> {
        T read(JsonNode root) throws IOException;
    }

    /** The package zones' long_term limits and the cpufreq ceilings, in {@code originals.json}. */
    public static final OriginalsKind<CpuOriginals> CPU = new OriginalsKind<>("originals", "an originals file", "limit",
            "its firmware reset the limits", "originals.json", OriginalsKind::writeCpu, OriginalsKind::readCpu,
            OriginalsKind::cpuLimits);

    /** The boards' power limits by index, mW, in {@code gpu-originals.json}. */
    public static final OriginalsKind<Map<Integer, Long>> GPU = new OriginalsKind<>("GPU originals", "a GPU originals file",
            "GPU limit", "the driver reset the boards' limits", "gpu-originals.json", OriginalsKind::writeGpu, OriginalsKind::readGpu,
            OriginalsKind::gpuLimits);

    /** The package zones' long_term limits by zone id, uW. */
    private static Map<String, Long> cpuLimits(CpuOriginals originals) {
        Map<String, Long> limits = new TreeMap<>();
        originals.powercap().forEach(l -> limits.put(l.zoneId(), l.powerLimitUw()));
        return limits;
    }

    /** The boards' limits by index, mW. */
    public static Map<String, Long> gpuLimits(Map<Integer, Long> limitsMw) {
        Map<String, Long> limits = new TreeMap<>();
        limitsMw.forEach((index, mw) -> limits.put(Integer.toString(index), mw));
        return limits;
    }

    private static void writeCpu(CpuOriginals originals, ObjectNode root) {
        ArrayNode limits = root.putArray("powercap");
        for (LimitSnapshot limit : originals.powercap()) {
            limits.addObject().put("zone", limit.zoneId()).put("constraint", limit.constraintIndex())
                    .put("powerLimitUw", limit.powerLimitUw());
        }
        ArrayNode ceilings = root.putArray("cpufreq");
        originals.cpufreqMaxKHz().forEach((policy, kHz) -> ceilings.addObject().put("policy", policy).put("scalingMaxKHz", kHz));
    }

    private static CpuOriginals readCpu(JsonNode root) throws IOException {
        List<LimitSnapshot> limits = new ArrayList<>();
        for (JsonNode limit : array(root, "powercap")) {
            limits.add(new LimitSnapshot(text(limit, "zone"), (int) number(limit, "constraint"), number(limit, "powerLimitUw")));
        }
        Map<Integer, Long> ceilings = new TreeMap<>();
        for (JsonNode ceiling : array(root, "cpufreq")) {
            ceilings.put((int) number(ceiling, "policy"), number(ceiling, "scalingMaxKHz"));
        }
        return new CpuOriginals(limits, ceilings);
    }

    private static void writeGpu(Map<Integer, Long> limitsMw, ObjectNode root) {
        ArrayNode boards = root.putArray("gpus");
        new TreeMap<>(limitsMw).forEach((index, mw) -> boards.addObject().put("index", index).put("powerLimitMw", mw));
    }

    private static Map<Integer, Long> readGpu(JsonNode root) throws IOException {
        Map<Integer, Long> limits = new TreeMap<>();
        for (JsonNode board : array(root, "gpus")) {
            limits.put((int) number(board, "index"), number(board, "powerLimitMw"));
        }
        return limits;
    }
}
