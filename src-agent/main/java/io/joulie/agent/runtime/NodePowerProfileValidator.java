package io.joulie.agent.runtime;

import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileSpec;

import java.util.Optional;

/**
 * Bad input never reaches hardware: a NodePowerProfile the agent would not act on, and why. The CRD schema refuses
 * most of these on a real API server; the agent does not rely on it.
 */
final class NodePowerProfileValidator {
    private NodePowerProfileValidator() {
    }

    /** Why a NodePowerProfile must not reach a backend, if it must not. */
    static Optional<String> problem(NodePowerProfile npp) {
        String name = "NodePowerProfile " + npp.getMetadata().getName() + ": ";
        NodePowerProfileSpec spec = npp.getSpec();
        if (spec == null) {
            return Optional.of(name + "no spec; the previous limit stays");
        }
        if (spec.profile() == null) {
            return Optional.of(name + "spec.profile is missing or not performance/eco; the previous limit stays");
        }
        if (spec.cpu() == null || spec.cpu().packagePowerCapWatts() == null) {
            return Optional.of(name + "spec.cpu.packagePowerCapWatts is missing; the previous limit stays");
        }
        double cap = spec.cpu().packagePowerCapWatts();
        if (!Double.isFinite(cap) || cap <= 0) {
            return Optional.of(name + "spec.cpu.packagePowerCapWatts = " + cap
                    + " is not a finite number of watts > 0; the previous limit stays");
        }
        return Optional.empty();
    }
}
