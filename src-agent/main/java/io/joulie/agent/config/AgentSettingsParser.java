package io.joulie.agent.config;

import io.joulie.agent.host.HostRoots;
import io.joulie.api.text.LabelSelector;
import io.joulie.api.text.Problems;
import io.joulie.api.text.Problems.DurationBound;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/**
 * Turns {@link AgentConfig} into {@link AgentSettings}. Every malformed value is collected and reported
 * at once, each naming its environment variable and property.
 */
public final class AgentSettingsParser {
    private final Problems problems = new Problems();

    private AgentSettingsParser() {
    }

    public static AgentSettings parse(AgentConfig c) {
        return new AgentSettingsParser().run(c);
    }

    private AgentSettings run(AgentConfig c) {
        AgentMode mode = switch (c.mode() == null ? "" : c.mode().trim().toLowerCase(Locale.ROOT)) {
            case "node" -> AgentMode.NODE;
            case "pool" -> AgentMode.POOL;
            default -> {
                error("AGENT_MODE", "agent.mode", c.mode(), "must be node or pool");
                yield AgentMode.NODE;
            }
        };
        Optional<String> node = c.nodeName().map(String::trim).filter(s -> !s.isEmpty());
        if (mode == AgentMode.NODE && node.isEmpty()) {
            error("NODE_NAME", "agent.node-name", "", "is required in node mode (set it from spec.nodeName with the downward API)");
        }
        Duration interval = problems.duration(where("AGENT_RECONCILE_INTERVAL", "agent.reconcile-interval"),
                c.reconcileInterval(), DurationBound.POSITIVE).orElse(Duration.ZERO);
        Path sys = path("JOULIE_SYSFS_ROOT", "agent.sysfs-root", c.sysfsRoot());
        Path proc = path("JOULIE_PROC_ROOT", "agent.proc-root", c.procRoot());
        Path dev = path("JOULIE_DEV_ROOT", "agent.dev-root", c.devRoot());
        Path stateDir = path("JOULIE_STATE_DIR", "agent.state-dir", c.stateDir());
        double floor = problems.number(where("JOULIE_PACKAGE_FLOOR_WATTS", "agent.package-floor-watts"), c.packageFloorWatts())
                .orElse(AgentSettings.DEFAULT_PACKAGE_FLOOR_WATTS);
        if (floor < 0) {
            error("JOULIE_PACKAGE_FLOOR_WATTS", "agent.package-floor-watts", c.packageFloorWatts(), "must be a number of watts >= 0");
        }
        boolean restore = switch (c.restoreOnExit() == null ? "" : c.restoreOnExit().trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> {
                error("JOULIE_RESTORE_ON_EXIT", "agent.restore-on-exit", c.restoreOnExit(), "must be true or false");
                yield true;
            }
        };
        String nvml = c.nvmlLibrary() == null ? "" : c.nvmlLibrary().trim();
        if (nvml.isEmpty()) {
            error("JOULIE_NVML_LIBRARY", "agent.nvml-library", c.nvmlLibrary(),
                    "must name the NVML library (a path, or a file name such as " + AgentSettings.DEFAULT_NVML_LIBRARY + ")");
        } else if (nvml.contains("/") && !nvml.startsWith("/")) {
            error("JOULIE_NVML_LIBRARY", "agent.nvml-library", c.nvmlLibrary(), "a path must be absolute");
        }
        LabelSelector selector = LabelSelector.parse("");
        String selectorText = c.poolLabelSelector().orElse("");
        try {
            selector = LabelSelector.parse(selectorText);
        } catch (IllegalArgumentException e) {
            error("POOL_NODE_SELECTOR", "agent.pool-node-selector", selectorText, e.getMessage());
        }
        int shards = integer("POOL_SHARDS", "agent.pool-shards", c.poolShards());
        if (shards < 1) {
            error("POOL_SHARDS", "agent.pool-shards", c.poolShards(), "must be at least 1");
        }
        int shard = integer("POOL_SHARD_ID", "agent.pool-shard-id", c.poolShardId());
        if (shard < 0 || (shards >= 1 && shard >= shards)) {
            error("POOL_SHARD_ID", "agent.pool-shard-id", c.poolShardId(), "must be in 0..POOL_SHARDS-1 (POOL_SHARDS = " + c.poolShards() + ")");
        }
        problems.throwIfAny("Invalid Joulie agent configuration");
        return new AgentSettings(mode, node, interval, new HostRoots(sys, proc, dev), restore, selector, shards, shard, stateDir,
                floor, nvml);
    }

    private static String where(String env, String property) {
        return env + " (" + property + ")";
    }

    private void error(String env, String property, String value, String problem) {
        problems.add(where(env, property), value, problem);
    }

    private int integer(String env, String property, String value) {
        return problems.integer(where(env, property), value).orElse(0);
    }

    private Path path(String env, String property, String value) {
        String v = value == null ? "" : value.trim();
        try {
            if (!v.isEmpty() && Path.of(v).isAbsolute()) {
                return Path.of(v);
            }
        } catch (InvalidPathException e) {
            // reported below
        }
        error(env, property, value, "must be an absolute path");
        return Path.of("/");
    }
}
