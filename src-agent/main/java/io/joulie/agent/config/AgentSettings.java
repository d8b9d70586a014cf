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
 */
public record AgentSettings(AgentMode mode, Optional<String> nodeName, Duration reconcileInterval, HostRoots roots,
                            boolean restoreOnExit, LabelSelector poolSelector, int poolShards, int poolShardId) {
}
