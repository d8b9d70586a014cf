package io.joulie.agent.config;

import io.joulie.api.text.LabelSelector;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithName;

import java.util.Optional;

/**
 * The agent's configuration, read as text and validated by {@link AgentSettingsParser} so that a bad value
 * stops start-up with a message naming the environment variable. application.properties maps each
 * {@code agent.*} property to its documented variable ({@code agent.mode=${AGENT_MODE:node}}), so either
 * name works (docs/agent.md).
 */
@ConfigMapping(prefix = "agent")
public interface AgentConfig {
    /** NODE_NAME: the node this agent serves (node mode; from the downward API). */
    @WithName("node-name")
    Optional<String> nodeName();

    @WithName("reconcile-interval")
    String reconcileInterval();

    @WithName("sysfs-root")
    String sysfsRoot();

    @WithName("proc-root")
    String procRoot();

    @WithName("dev-root")
    String devRoot();

    @WithName("restore-on-exit")
    String restoreOnExit();

    /** JOULIE_NVML_LIBRARY: the NVML library, a path or a name the dynamic loader finds. */
    @WithName("nvml-library")
    String nvmlLibrary();

    /** JOULIE_STATE_DIR: where the originals outlive the agent process (node mode). */
    @WithName("state-dir")
    String stateDir();

    /** JOULIE_PACKAGE_FLOOR_WATTS: no package share of a node cap below this is written. */
    @WithName("package-floor-watts")
    String packageFloorWatts();

    @WithName("mode")
    String mode();

    @WithName("pool-node-selector")
    Optional<String> poolLabelSelector();

    @WithName("pool-shards")
    String poolShards();

    @WithName("pool-shard-id")
    String poolShardId();
}
