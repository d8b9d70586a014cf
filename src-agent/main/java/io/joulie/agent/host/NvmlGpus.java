package io.joulie.agent.host;

import io.joulie.agent.host.CapResult.Outcome;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The GPU cap policy over {@link Nvml}, whatever moves the calls. At start the boards are enumerated (name, limit
 * constraints, default limit) and the limits in force are recorded in {@link GpuOriginals} before anything is
 * written, unless an earlier run left a record it never wrote back (it crashed with the boards capped): then those are
 * the originals. A cap is resolved per board (watts, or a percent of the board's maximum), clamped to the board's
 * constraints, and written to every board or none: a board that could not be enumerated blocks the cap, and a set
 * that fails puts back the limits already written. A refusal by the driver (NVML_ERROR_NO_PERMISSION,
 * NVML_ERROR_NOT_SUPPORTED) blocks; any other failure is an error. Not thread-safe: the agent's worker calls it.
 */
public final class NvmlGpus implements Gpus {
    private static final Logger LOG = Logger.getLogger(NvmlGpus.class);

    private final Nvml nvml;
    private final GpuOriginals store;
    private final List<GpuBoard> boards;
    /** Boards NVML counts but could not describe ("a GPU index that does not exist"): no cap is written while any is. */
    private final List<String> problems;
    private final Map<Integer, Long> originalsMw;

    private NvmlGpus(Nvml nvml, GpuOriginals store, List<GpuBoard> boards, List<String> problems, Map<Integer, Long> originalsMw) {
        this.nvml = nvml;
        this.store = store;
        this.boards = List.copyOf(boards);
        this.problems = List.copyOf(problems);
        this.originalsMw = Map.copyOf(originalsMw);
    }

    /**
     * Enumerates the boards and records the originals. When NVML cannot even count the boards, or the originals
     * cannot be recorded (so they could not be restored), no board is controlled: {@link Gpus#absent} saying why,
     * and NVML is closed.
     */
    public static Gpus open(Nvml nvml, GpuOriginals store) {
        int count;
        try {
            count = nvml.deviceCount();
        } catch (NvmlException e) {
            nvml.close();
            return Gpus.absent("NVML loaded but cannot count the boards: " + e.getMessage());
        }
        List<GpuBoard> boards = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        Map<Integer, Long> found = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            try {
                Nvml.Constraints c = nvml.constraints(i);
                boards.add(new GpuBoard(i, nvml.name(i), c.minMw(), c.maxMw(), nvml.defaultLimitMw(i)));
                found.put(i, nvml.limitMw(i));
            } catch (NvmlException e) {
                problems.add(e.getMessage());
            }
        }
        Map<Integer, Long> originals;
        try {
            Optional<Map<Integer, Long>> earlier = store.load();
            if (earlier.isPresent()) {
                originals = earlier.get();
                LOG.infof("GPU limits found at an earlier start and never written back (the agent did not exit cleanly): %s mW; "
                        + "these are restored, not the limits in force now (%s mW)", originals, found);
            } else {
                originals = found;
                store.save(originals);
            }
        } catch (IOException e) {
            nvml.close();
            return Gpus.absent("cannot record the GPU limits found at start (" + e.getMessage() + "); no limit is written "
                    + "that could not be put back");
        }
        return new NvmlGpus(nvml, store, boards, problems, originals);
    }

    @Override
    public Optional<String> unavailable() {
        return Optional.empty();
    }

    @Override
    public List<GpuBoard> boards() {
        return boards;
    }

    /** Boards NVML counts but could not describe, with NVML's reason. */
    public List<String> problems() {
        return problems;
    }

    @Override
    public GpuReading read(int index) throws IOException {
        return new GpuReading(index, nvml.limitMw(index), nvml.powerMw(index), nvml.energyMj(index));
    }

    @Override
    public GpuCapResult apply(CapRequest cap) {
        if (cap.problem() != null) {
            return result(Outcome.BLOCKED, cap.problem(), Map.of());
        }
        if (boards.isEmpty() && problems.isEmpty()) {
            return result(Outcome.BLOCKED, "NVML reports no GPU board on this node", Map.of());
        }
        if (!problems.isEmpty()) {
            return result(Outcome.BLOCKED, String.join("; ", problems) + "; no board's limit is written", Map.of());
        }
        Map<Integer, Long> targets = new TreeMap<>();
        List<String> notes = new ArrayList<>();
        for (GpuBoard board : boards) {
            long requested = switch (cap) {
                case CapRequest.Watts w -> Math.round(w.watts() * 1000);
                case CapRequest.Percent p -> p.of(board.maxMw());
            };
            long value = board.clamp(requested);
            if (value != requested) {
                notes.add("GPU " + board.index() + ": " + requested + " mW clamped to board " + (value > requested ? "min " : "max ")
                        + value + " mW");
            }
            targets.put(board.index(), value);
        }
        Map<Integer, Long> before = new TreeMap<>();
        Map<Integer, Long> written = new LinkedHashMap<>();
        try {
            for (GpuBoard board : boards) {
                before.put(board.index(), nvml.limitMw(board.index()));
            }
            for (Map.Entry<Integer, Long> target : targets.entrySet()) {
                nvml.setLimitMw(target.getKey(), target.getValue());
                written.put(target.getKey(), target.getValue());
            }
        } catch (NvmlException e) {
            String rollback = rollBack(written, before);
            return result(e.error().refused() ? Outcome.BLOCKED : Outcome.ERROR, e.getMessage() + rollback, Map.of());
        }
        StringBuilder message = new StringBuilder("applied ").append(cap.describe())
                .append(cap instanceof CapRequest.Percent ? " of each board's maximum" : " per GPU")
                .append(" as power limit on ").append(boards.size()).append(boards.size() == 1 ? " board" : " boards");
        notes.forEach(note -> message.append("; ").append(note));
        return result(Outcome.APPLIED, message.toString(), targets);
    }

    /** Puts back what an apply wrote before it failed; says what could not be put back. */
    private String rollBack(Map<Integer, Long> written, Map<Integer, Long> before) {
        if (written.isEmpty()) {
            return "; nothing was written";
        }
        List<String> failed = new ArrayList<>();
        for (Integer index : written.keySet()) {
            try {
                nvml.setLimitMw(index, before.get(index));
            } catch (NvmlException e) {
                failed.add(e.getMessage());
            }
        }
        return failed.isEmpty() ? "; rolled back GPU " + written.keySet() + " to their previous limits"
                : "; rollback failed: " + String.join("; ", failed);
    }

    @Override
    public Map<Integer, Long> limitsMw() {
        Map<Integer, Long> limits = new TreeMap<>();
        for (GpuBoard board : boards) {
            try {
                limits.put(board.index(), nvml.limitMw(board.index()));
            } catch (NvmlException e) {
                // left out: the caller sees a board missing, which differs from what it wrote
            }
        }
        return limits;
    }

    /** The limits found at start (or carried over from a run that did not write them back). */
    public Map<Integer, Long> originalsMw() {
        return originalsMw;
    }

    /** Writes every original back; a board that refuses is reported, the others are restored. Forgets the record when all are. */
    @Override
    public GpuCapResult restore() {
        Outcome outcome = Outcome.APPLIED;
        List<String> failures = new ArrayList<>();
        Map<Integer, Long> written = new TreeMap<>();
        for (Map.Entry<Integer, Long> original : new TreeMap<>(originalsMw).entrySet()) {
            try {
                nvml.setLimitMw(original.getKey(), original.getValue());
                written.put(original.getKey(), original.getValue());
            } catch (NvmlException e) {
                failures.add(e.getMessage());
                Outcome o = e.error().refused() ? Outcome.BLOCKED : Outcome.ERROR;
                outcome = outcome.compareTo(o) >= 0 ? outcome : o;
            }
        }
        if (failures.isEmpty()) {
            try {
                store.clear();
            } catch (IOException e) {
                LOG.warnf("GPU limits restored, but their record could not be removed (%s); the next start restores them again",
                        e.getMessage());
            }
        }
        String message = failures.isEmpty()
                ? "restored the GPU limits found at start on " + written.size() + (written.size() == 1 ? " board" : " boards")
                : "restore failed: " + String.join("; ", failures);
        return result(outcome, message, outcome == Outcome.APPLIED ? written : Map.of());
    }

    @Override
    public void close() {
        nvml.close();
    }

    private GpuCapResult result(Outcome outcome, String message, Map<Integer, Long> written) {
        return new GpuCapResult(outcome, message, written, limitsMw());
    }
}
