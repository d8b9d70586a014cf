package io.joulie.agent.control.gpu;

import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.HostControl;
import io.joulie.agent.control.LimitReference;
import io.joulie.agent.control.NodeFacts;
import io.joulie.agent.control.Observed;
import io.joulie.agent.host.CapRequest;
import io.joulie.agent.host.GpuCapResult;
import io.joulie.agent.host.Gpus;
import io.joulie.api.v1alpha1.ControlResult;

import java.util.Map;
import java.util.Optional;

/**
 * Host GPU control: NVML power limits through {@link Gpus#apply}. As for the CPU's RAPL limits, the limits read back
 * after a successful apply are the reference: each later call rewrites only when the cap changed or a board's limit
 * differs from it (changed behind the agent's back, counted in {@link #rewrites()}), so a converged node sees no
 * writes; a cap the driver blocked is not tried again until the cap changes or the limits are restored. Not
 * thread-safe: the agent's single worker calls it.
 */
public final class HostGpuControl implements GpuControl, HostControl {
    private final Gpus gpus;
    private final LimitReference<Integer, GpuCapResult> reference = new LimitReference<>();

    public HostGpuControl(Gpus gpus) {
        this.gpus = gpus;
    }

    /** How many times a board's limit found different from the last write was written again. */
    @Override
    public int rewrites() {
        return reference.rewrites();
    }

    @Override
    public ControlOutcome enforce(CapRequest cap, NodeFacts facts) {
        if (gpus.unavailable().isPresent()) {
            return ControlOutcome.blocked(GpuBackend.NVML, gpus.unavailable().get(), Map.of());
        }
        Map<Integer, Long> current = gpus.limitsMw();
        Optional<String> converged = reference.converged(cap, current);
        if (converged.isPresent()) {
            return new ControlOutcome(GpuBackend.NVML, ControlResult.APPLIED, converged.get(), observed(current));
        }
        Optional<GpuCapResult> known = reference.knownBlocked(cap);
        GpuCapResult r = known.orElseGet(() -> gpus.apply(cap));
        return switch (r.outcome()) {
            case APPLIED -> {
                Map<Integer, Long> readBack = gpus.limitsMw();
                reference.applied(cap, readBack, r.message());
                yield new ControlOutcome(GpuBackend.NVML, ControlResult.APPLIED, r.message(), observed(readBack));
            }
            case BLOCKED -> {
                reference.blocked(cap, r);
                yield new ControlOutcome(GpuBackend.NVML, ControlResult.BLOCKED, r.message(), observed(known.isPresent() ? current : r.observedMw()));
            }
            case ERROR -> {
                reference.forget();
                yield new ControlOutcome(GpuBackend.NVML, ControlResult.ERROR, r.message(), observed(r.observedMw()));
            }
        };
    }

    @Override
    public boolean leftByEarlierProcess() {
        return gpus.leftByEarlierProcess();
    }

    @Override
    public ControlOutcome restore() {
        reference.forget();
        if (!gpus.held()) {
            // nothing written since the start or the last restore: what is in force is someone else's, and stays
            return ControlOutcome.none(GpuBackend.NVML, "nothing to restore: no GPU limit written since the start or the last restore");
        }
        GpuCapResult r = gpus.restore();
        ControlResult result = switch (r.outcome()) {
            case APPLIED -> ControlResult.APPLIED;
            case BLOCKED -> ControlResult.BLOCKED;
            case ERROR -> ControlResult.ERROR;
        };
        return new ControlOutcome(GpuBackend.NVML, result, r.message(), observed(r.observedMw()));
    }

    /** What is in force now, for a status that reports without acting. */
    @Override
    public Map<Observed, Double> observedNow() {
        return gpus.unavailable().isPresent() ? Map.of() : observed(gpus.limitsMw());
    }

    /** capWatts (sum), capWattsPerGpu (mean) and gpus from the per-board limits read back. */
    static Map<Observed, Double> observed(Map<Integer, Long> limitsMw) {
        return Observed.ofLimits(limitsMw.values(), 1e3, Observed.CAP_WATTS_PER_GPU, Observed.GPUS);
    }
}
