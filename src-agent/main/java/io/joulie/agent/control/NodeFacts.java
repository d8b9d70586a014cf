package io.joulie.agent.control;

import io.joulie.api.v1alpha1.NodeHardwareStatus;

import java.util.Optional;
import java.util.OptionalDouble;

/**
 * What the agent knows of a node when a control acts on it: the latest package power reading (the DVFS loops run on
 * it) and the node's hardware as its HTTP telemetry describes it (percent caps sent over HTTP are resolved against it;
 * a host control reads its own hardware instead).
 */
public record NodeFacts(OptionalDouble packageWatts, Optional<NodeHardwareStatus> hardware) {
    public static NodeFacts of(OptionalDouble packageWatts) {
        return new NodeFacts(packageWatts, Optional.empty());
    }
}
