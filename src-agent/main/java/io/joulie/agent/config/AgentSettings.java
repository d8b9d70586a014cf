package io.joulie.agent.config;

import io.joulie.api.text.LabelSelector;
import io.joulie.agent.host.HostRoots;

import java.time.Duration;
import java.util.Optional;

/**
 * The validated agent configuration.
 *
 * @param nodeName       NODE_NAME; present in node mode
 * @param restoreOnExit  JOULIE_RESTORE_ON_EXIT: write the limits found at start back on shutdown and when
 *                       the node's NodePowerProfile is deleted
 * @param nvmlLibrary    JOULIE_NVML_LIBRARY: the NVML library to load, a path or a file name the dynamic loader finds
 */
public record AgentSettings(AgentMode mode, Optional<String> nodeName, Duration reconcileInterval, HostRoots roots,
                            boolean restoreOnExit, String nvmlLibrary, LabelSelector poolSelector, int poolShards,
                            int poolShardId) {
    /** The library's usual name, found by the dynamic loader where the NVIDIA container toolkit or a hostPath puts it. */
    public static final String DEFAULT_NVML_LIBRARY = "libnvidia-ml.so.1";
}
