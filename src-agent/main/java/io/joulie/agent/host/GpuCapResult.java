package io.joulie.agent.host;

import io.joulie.agent.host.CapResult.Outcome;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * What applying (or restoring) GPU power limits did, with the outcomes of {@link CapResult.Outcome}.
 *
 * @param writtenMw  per board index, the limit written (empty unless APPLIED: a failed apply puts back what it wrote)
 * @param observedMw per board index, the limit read back afterwards
 */
public record GpuCapResult(Outcome outcome, String message, Map<Integer, Long> writtenMw, Map<Integer, Long> observedMw) {
    public GpuCapResult {
        writtenMw = Collections.unmodifiableMap(new TreeMap<>(writtenMw));
        observedMw = Collections.unmodifiableMap(new TreeMap<>(observedMw));
    }
}
