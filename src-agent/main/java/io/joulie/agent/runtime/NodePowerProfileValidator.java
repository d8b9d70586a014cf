package io.joulie.agent.runtime;

import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileSpec;
import io.joulie.api.v1alpha1.Profile;

import java.math.BigDecimal;

import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Bad input never reaches hardware: a NodePowerProfile the agent would not act on, and why. The CRD schema refuses
 * most of these on a real API server; the agent does not rely on it. An eco cap above the performance cap the node
 * last had is refused too: eco must never allow more than performance.
 */
final class NodePowerProfileValidator {
    private NodePowerProfileValidator() {
    }

    /**
     * Why a NodePowerProfile must not reach a backend, if it must not.
     *
     * @param performanceCap the cap of the last valid performance profile this agent saw for the node, if any
     */
    static Optional<String> problem(NodePowerProfile npp, OptionalDouble performanceCap) {
        String name = "NodePowerProfile " + npp.getMetadata().getName() + ": ";
        NodePowerProfileSpec spec = npp.getSpec();
        if (spec == null) {
            return Optional.of(name + "no spec; the previous limit stays");
        }
        if (spec.profile() == null) {
            return Optional.of(name + "spec.profile is missing or is not a profile this agent knows (performance, eco); "
                    + "the previous limit stays");
        }
        if (spec.cpu() == null || spec.cpu().packagePowerCapWatts() == null) {
            return Optional.of(name + "spec.cpu.packagePowerCapWatts is missing; the previous limit stays");
        }
        double cap = spec.cpu().packagePowerCapWatts();
        if (!Double.isFinite(cap) || cap <= 0) {
            return Optional.of(name + "spec.cpu.packagePowerCapWatts = " + cap
                    + " is not a finite number of watts > 0; the previous limit stays");
        }
        if (spec.profile() == Profile.ECO && performanceCap.isPresent() && cap > performanceCap.getAsDouble()) {
            return Optional.of(name + "the eco cap " + watts(cap) + " W is above the performance cap " + watts(performanceCap.getAsDouble())
                    + " W this node had; eco must not allow more than performance; the previous limit stays");
        }
        return Optional.empty();
    }

    private static String watts(double w) {
        return BigDecimal.valueOf(w).stripTrailingZeros().toPlainString();
    }
}
