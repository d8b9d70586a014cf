package io.joulie.agent.runtime;

import io.joulie.agent.host.CapRequest;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileSpec;
import io.joulie.api.v1alpha1.Profile;

import java.util.Optional;

/**
 * Bad input never reaches hardware: what a NodePowerProfile asks of each control family, or why the agent will not act
 * on it. The CRD schema (and its CEL rules) refuse most of these on a real API server; the agent does not rely on it.
 * The families are judged apart: a bad GPU part leaves the CPU cap to be applied, and the other way round. An eco cap
 * above the performance cap the family last had is refused too (eco must never allow more than performance), where the
 * two are in the same unit: watts against watts, a percent against a percent.
 */
final class NodePowerProfileValidator {
    /** What the profile asks of a family. */
    sealed interface Ask {
    }

    /** A valid cap. */
    record Cap(CapRequest request) implements Ask {
    }

    /** A part the agent will not act on, and why; the previous limit stays. */
    record Problem(String message) implements Ask {
    }

    /** The profile asks nothing of the family (no spec.gpu). */
    record Nothing() implements Ask {
    }

    private NodePowerProfileValidator() {
    }

    /**
     * The CPU cap: spec.cpu.packagePowerCapWatts or spec.cpu.packagePowerCapPercent, exactly one, in range.
     *
     * @param performance the CPU cap of the last valid performance profile this agent saw for the node, if any
     */
    static Ask cpu(NodePowerProfile npp, Optional<CapRequest> performance) {
        return whole(npp).<Ask>map(Problem::new).orElseGet(() -> {
            NodePowerProfileSpec.CpuPower cpu = npp.getSpec().cpu();
            return notAbove(npp, "cap", performance, cap(npp, "spec.cpu.packagePowerCapWatts", cpu == null ? null : cpu.packagePowerCapWatts(),
                    "spec.cpu.packagePowerCapPercent", cpu == null ? null : cpu.packagePowerCapPercent()));
        });
    }

    /**
     * The GPU cap: nothing without spec.gpu; else spec.gpu.powerCapWattsPerGpu or spec.gpu.powerCapPercent, exactly one.
     *
     * @param performance the GPU cap of the last valid performance profile this agent saw for the node, if any
     */
    static Ask gpu(NodePowerProfile npp, Optional<CapRequest> performance) {
        Optional<String> whole = whole(npp);
        if (whole.isPresent()) {
            return npp.getSpec() != null && npp.getSpec().gpu() != null ? new Problem(whole.get()) : new Nothing();
        }
        NodePowerProfileSpec.GpuPower gpu = npp.getSpec().gpu();
        if (gpu == null) {
            return new Nothing();
        }
        return notAbove(npp, "GPU cap", performance,
                cap(npp, "spec.gpu.powerCapWattsPerGpu", gpu.powerCapWattsPerGpu(), "spec.gpu.powerCapPercent", gpu.powerCapPercent()));
    }

    /** An eco cap above the performance cap in the same unit is a problem; any other ask stays as it is. */
    private static Ask notAbove(NodePowerProfile npp, String what, Optional<CapRequest> performance, Ask ask) {
        if (npp.getSpec().profile() != Profile.ECO || performance.isEmpty() || !(ask instanceof Cap(CapRequest eco))) {
            return ask;
        }
        boolean above = switch (eco) {
            case CapRequest.Watts(double w) -> performance.get() instanceof CapRequest.Watts(double p) && w > p;
            case CapRequest.Percent(double e) -> performance.get() instanceof CapRequest.Percent(double p) && e > p;
        };
        return above ? new Problem(name(npp) + "the eco " + what + " " + eco.describe() + " is above the performance " + what + " "
                + performance.get().describe() + " this node had; eco must not allow more than performance; the previous limit stays")
                : ask;
    }

    /** What makes the whole profile unusable (no spec, no profile). */
    private static Optional<String> whole(NodePowerProfile npp) {
        NodePowerProfileSpec spec = npp.getSpec();
        if (spec == null) {
            return Optional.of(name(npp) + "no spec; the previous limit stays");
        }
        if (spec.profile() == null) {
            return Optional.of(name(npp) + "spec.profile is missing or is not a profile this agent knows (performance, eco); "
                    + "the previous limit stays");
        }
        return Optional.empty();
    }

    private static Ask cap(NodePowerProfile npp, String wattsField, Double watts, String percentField, Double percent) {
        String name = name(npp);
        if (watts != null && percent != null) {
            return new Problem(name + wattsField + " and " + percentField + " are both set (they are mutually exclusive); "
                    + "the previous limit stays");
        }
        if (watts == null && percent == null) {
            return new Problem(name + wattsField + " is missing (or set " + percentField + "); the previous limit stays");
        }
        CapRequest request = watts != null ? new CapRequest.Watts(watts) : new CapRequest.Percent(percent);
        if (request.problem() != null) {
            return new Problem(name + (watts != null ? wattsField + " = " + watts + " is not a finite number of watts > 0"
                    : percentField + " = " + percent + " is not a percent in (0, 100]") + "; the previous limit stays");
        }
        return new Cap(request);
    }

    private static String name(NodePowerProfile npp) {
        return "NodePowerProfile " + npp.getMetadata().getName() + ": ";
    }
}
