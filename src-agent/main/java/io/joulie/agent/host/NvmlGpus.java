package io.joulie.agent.host;

import io.joulie.agent.host.CapResult.Outcome;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The GPU cap policy over {@link Nvml}, whatever moves the calls. At start the boards are enumerated (name, limit
 * constraints, default limit). Before the first write (the first since the start or since the last restore) the
 * limits in force are read as the originals and kept ({@link KeptOriginals}, the CPU's lifecycle): a write whose
 * originals cannot be kept does not happen. An earlier run that kept originals and never wrote them back (it crashed
 * with the boards capped) leaves them to this one: they, not the limits in force, are what a restore writes. A cap is
 * resolved per board (watts, or a percent of the board's maximum), clamped to the board's constraints, and written to
 * every board or none: a board that could not be enumerated blocks the cap, and a set that fails puts back the limits
 * already written. A refusal by the driver (NVML_ERROR_NO_PERMISSION, NVML_ERROR_NOT_SUPPORTED) blocks; any other failure is
 * an error. Not thread-safe: the agent's worker calls it.
 */
public final class NvmlGpus implements Gpus {
    private static final Logger LOG = Logger.getLogger(NvmlGpus.class);
    private static final String NOTHING_WRITTEN = "; nothing was written";
    private static final String ROLLED_BACK = "; rolled back GPU ";
    private static final String NOTHING_TO_RESTORE = "nothing to restore: no GPU limit written since the start or the last restore";

    private final Nvml nvml;
    private final KeptOriginals<Map<Integer, Long>> originals;
    private final List<GpuBoard> boards;
    /** Boards NVML counts but could not describe ("a GPU index that does not exist"): no cap is written while any is. */
    private final List<String> problems;

    private NvmlGpus(Nvml nvml, KeptOriginals<Map<Integer, Long>> originals, List<GpuBoard> boards, List<String> problems) {
        this.nvml = nvml;
        this.originals = originals;
        this.boards = List.copyOf(boards);
        this.problems = List.copyOf(problems);
    }

    /**
     * Enumerates the boards and takes over the originals an earlier run kept, if any ({@code originals} opens them,
     * once NVML has counted the boards, with the boards' limits in force to tell a kexec restart from a reboot). When NVML cannot even count the boards, or the store cannot be read (it may
     * hold originals this run would otherwise lose), no board is controlled: {@link Gpus#absent} saying why, and NVML
     * is closed.
     */
    public static Gpus open(Nvml nvml, Function<KeptOriginals.InForce<Map<String, Long>>, KeptOriginals<Map<Integer, Long>>> originals) {
        int count;
        try {
            count = nvml.deviceCount();
        } catch (NvmlException e) {
            nvml.close();
            return Gpus.absent("NVML loaded but cannot count the boards: " + e.getMessage());
        }
        List<GpuBoard> boards = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            try {
                Nvml.Constraints c = nvml.constraints(i);
                boards.add(new GpuBoard(i, nvml.name(i), c.minMw(), c.maxMw(), nvml.defaultLimitMw(i)));
            } catch (NvmlException e) {
                problems.add(e.getMessage());
            }
        }
        KeptOriginals<Map<Integer, Long>> kept = originals.apply(() -> {
            Map<Integer, Long> now = new TreeMap<>();
            for (GpuBoard board : boards) {
                try {
                    now.put(board.index(), nvml.limitMw(board.index()));
                } catch (NvmlException e) {
                    throw new IOException("GPU " + board.index() + ": " + e.getMessage(), e);
                }
            }
            return OriginalsKind.gpuLimits(now);
        });
        if (kept.unusable().isPresent()) {
            nvml.close();
            return Gpus.absent(kept.unusable().get());
        }
        return new NvmlGpus(nvml, kept, boards, problems);
    }

    @Override
    public Optional<String> unavailable() {
        return Optional.empty();
    }

    @Override
    public List<GpuBoard> boards() {
        return boards;
    }

    @Override
    public GpuReading read(int index) throws IOException {
        long limitMw = nvml.limitMw(index);
        long powerMw = nvml.powerMw(index);
        OptionalLong energyMj;
        try {
            energyMj = OptionalLong.of(nvml.energyMj(index));
        } catch (NvmlException e) {
            if (e.error() != NvmlReturn.ERROR_NOT_SUPPORTED) {
                throw e;
            }
            energyMj = OptionalLong.empty(); // a board older than Volta has no energy counter; its limit and power still count
        }
        return new GpuReading(index, limitMw, powerMw, energyMj);
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
            try {
                originals.beforeWrite(() -> Map.copyOf(before));
            } catch (IOException e) {
                return result(Outcome.BLOCKED, "cannot keep the GPU limits in force in " + originals.describe() + " (" + e.getMessage()
                        + "); nothing was written, as they could not be put back", Map.of());
            }
            for (Map.Entry<Integer, Long> target : targets.entrySet()) {
                nvml.setLimitMw(target.getKey(), target.getValue());
                written.put(target.getKey(), target.getValue());
            }
        } catch (NvmlException e) {
            String rollback = rollBack(written, before);
            if (rollback.equals(NOTHING_WRITTEN) || rollback.startsWith(ROLLED_BACK)) {
                originals.nothingWritten();
            }
            return result(e.error().refused() ? Outcome.BLOCKED : Outcome.ERROR, e.getMessage() + rollback
                    + recordWritten(before, false), Map.of());
        }
        StringBuilder message = new StringBuilder("applied ").append(cap.describe())
                .append(cap instanceof CapRequest.Percent ? " of each board's maximum" : " per GPU")
                .append(" as power limit on ").append(boards.size()).append(boards.size() == 1 ? " board" : " boards");
        notes.forEach(note -> message.append("; ").append(note));
        message.append(recordWritten(before, true));
        return result(Outcome.APPLIED, message.toString(), targets);
    }

    /**
     * Records the boards' limits as this attempt left them with the kept originals (all after a cap applied, else the
     * boards it changed), as the CPU does; "" or why they could not be recorded.
     */
    private String recordWritten(Map<Integer, Long> before, boolean applied) {
        Map<String, Long> left = new TreeMap<>(applied ? Map.of() : originals.written());
        limitsMw().forEach((index, mw) -> {
            if (applied || !mw.equals(before.get(index))) {
                left.put(Integer.toString(index), mw);
            }
        });
        return originals.afterWrite(left).map(why -> "; " + why).orElse("");
    }

    /** Puts back what an apply wrote before it failed; says what could not be put back. */
    private String rollBack(Map<Integer, Long> written, Map<Integer, Long> before) {
        if (written.isEmpty()) {
            return NOTHING_WRITTEN;
        }
        List<String> failed = new ArrayList<>();
        for (Integer index : written.keySet()) {
            try {
                nvml.setLimitMw(index, before.get(index));
            } catch (NvmlException e) {
                failed.add(e.getMessage());
            }
        }
        return failed.isEmpty() ? ROLLED_BACK + written.keySet() + " to their previous limits"
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

    /** The originals kept (this run's, or an earlier run's it did not write back); empty while nothing is held. */
    public Optional<Map<Integer, Long>> originalsMw() {
        return originals.kept();
    }

    @Override
    public boolean held() {
        return originals.held();
    }

    @Override
    public boolean leftByEarlierProcess() {
        return originals.leftByEarlierProcess();
    }

    /**
     * Writes every original back; a board that refuses is reported, the others are restored. Forgets the originals
     * when all are back. Nothing held: nothing is written.
     */
    @Override
    public GpuCapResult restore() {
        if (originals.kept().isEmpty()) {
            return result(Outcome.APPLIED, NOTHING_TO_RESTORE, Map.of());
        }
        Outcome outcome = Outcome.APPLIED;
        List<String> failures = new ArrayList<>();
        Map<Integer, Long> written = new TreeMap<>();
        Map<Integer, Long> before = limitsMw();
        for (Map.Entry<Integer, Long> original : new TreeMap<>(originals.kept().get()).entrySet()) {
            // a kept original outside the board's constraints (a file corrupted, tampered with, or of other boards) stays unwritten
            Optional<GpuBoard> board = boards.stream().filter(b -> b.index() == original.getKey()).findFirst();
            if (board.isEmpty() || original.getValue() < board.get().minMw() || original.getValue() > board.get().maxMw()) {
                String refused = "GPU " + original.getKey() + ": the original " + original.getValue() + " mW is "
                        + board.map(b -> "outside the board's constraints [" + b.minMw() + ", " + b.maxMw() + "] mW").orElse("of no board NVML "
                        + "reports") + "; not written back, and the board is left as found; check the kept originals and set the "
                        + "limit by hand";
                LOG.warnf("Restore: %s", refused);
                failures.add(refused);
                outcome = outcome.compareTo(Outcome.BLOCKED) >= 0 ? outcome : Outcome.BLOCKED;
                continue;
            }
            try {
                nvml.setLimitMw(original.getKey(), original.getValue());
                written.put(original.getKey(), original.getValue());
            } catch (NvmlException e) {
                failures.add(e.getMessage());
                Outcome o = e.error().refused() ? Outcome.BLOCKED : Outcome.ERROR;
                outcome = outcome.compareTo(o) >= 0 ? outcome : o;
            }
        }
        String kept = "";
        if (failures.isEmpty()) {
            try {
                originals.restored();
            } catch (IOException e) {
                kept = "; the kept originals in " + originals.describe() + " could not be removed (" + e.getMessage()
                        + "), the next start restores them again";
                LOG.warnf("GPU limits restored, but %s", kept.substring(2));
            }
        }
        if (originals.held()) {
            // still held (a board not put back, or the file not removed): what the restore changed is recorded
            kept += recordWritten(before, false);
        }
        String message = failures.isEmpty()
                ? "restored the GPU limits found before the first write on " + written.size() + (written.size() == 1 ? " board" : " boards") + kept
                : "restore failed: " + String.join("; ", failures) + kept;
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
