package io.joulie.agent.config;

import io.joulie.agent.host.HostRoots;
import io.joulie.api.text.LabelSelector;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The validated agent configuration.
 *
 * @param nodeName       NODE_NAME; present in node mode
 * @param restoreOnExit  JOULIE_RESTORE_ON_EXIT: write the originals back on shutdown, when the node's
 *                       NodePowerProfile (or its part for a family) is deleted and when a family's control leaves host
 * @param stateDir       JOULIE_STATE_DIR: where the limits found before the first write outlive the agent process
 * @param packageFloorWatts JOULIE_PACKAGE_FLOOR_WATTS: no package share of a node cap below this is written
 * @param nvmlLibrary    JOULIE_NVML_LIBRARY: the NVML library to load, a path or a file name the dynamic loader finds
 */
public record AgentSettings(AgentMode mode, Optional<String> nodeName, Duration reconcileInterval, HostRoots roots,
                            boolean restoreOnExit, LabelSelector poolSelector, int poolShards, int poolShardId, Path stateDir,
                            double packageFloorWatts, String nvmlLibrary) {
    /** The default of JOULIE_PACKAGE_FLOOR_WATTS (docs/agent-host.md, "The floor"). */
    public static final double DEFAULT_PACKAGE_FLOOR_WATTS = 10;
    /** The library's usual name, found by the dynamic loader where the NVIDIA container toolkit or a hostPath puts it. */
    public static final String DEFAULT_NVML_LIBRARY = "libnvidia-ml.so.1";
}
