package io.joulie.agent.config;

/** AGENT_MODE: one agent per node (DaemonSet) or one agent serving many simulated nodes. */
public enum AgentMode {
    /** Serves NODE_NAME with host, http or none backends. */
    NODE,
    /** Serves every node matching POOL_NODE_SELECTOR in its shard, with http or none backends only. */
    POOL
}
