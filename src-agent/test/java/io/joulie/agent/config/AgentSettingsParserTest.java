package io.joulie.agent.config;

import io.joulie.api.text.ConfigurationException;
import io.joulie.api.text.LabelSelector;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AgentSettingsParserTest {
    /** An {@link AgentConfig} over environment-variable names, starting from the documented defaults. */
    static final class Env implements AgentConfig {
        final Map<String, String> env = new HashMap<>(Map.of("AGENT_RECONCILE_INTERVAL", "20s", "JOULIE_SYSFS_ROOT", "/sys",
                "JOULIE_PROC_ROOT", "/proc", "JOULIE_DEV_ROOT", "/dev", "JOULIE_RESTORE_ON_EXIT", "true", "AGENT_MODE", "node",
                "POOL_SHARDS", "1", "POOL_SHARD_ID", "0", "NODE_NAME", "worker-1", "JOULIE_NVML_LIBRARY", "libnvidia-ml.so.1"));

        Env() {
            env.putAll(Map.of("JOULIE_STATE_DIR", "/var/lib/joulie", "JOULIE_PACKAGE_FLOOR_WATTS", "10"));
        }

        Env with(String k, String v) {
            env.put(k, v);
            return this;
        }

        public Optional<String> nodeName() { return Optional.ofNullable(env.get("NODE_NAME")); }
        public String reconcileInterval() { return env.get("AGENT_RECONCILE_INTERVAL"); }
        public String sysfsRoot() { return env.get("JOULIE_SYSFS_ROOT"); }
        public String procRoot() { return env.get("JOULIE_PROC_ROOT"); }
        public String devRoot() { return env.get("JOULIE_DEV_ROOT"); }
        public String restoreOnExit() { return env.get("JOULIE_RESTORE_ON_EXIT"); }
        public String nvmlLibrary() { return env.get("JOULIE_NVML_LIBRARY"); }
        public String stateDir() { return env.get("JOULIE_STATE_DIR"); }
        public String packageFloorWatts() { return env.get("JOULIE_PACKAGE_FLOOR_WATTS"); }
        public String mode() { return env.get("AGENT_MODE"); }
        public Optional<String> poolLabelSelector() { return Optional.ofNullable(env.get("POOL_NODE_SELECTOR")); }
        public String poolShards() { return env.get("POOL_SHARDS"); }
        public String poolShardId() { return env.get("POOL_SHARD_ID"); }
    }

    @Test
    void defaults() {
        AgentSettings s = AgentSettingsParser.parse(new Env());
        assertThat(s.mode()).isEqualTo(AgentMode.NODE);
        assertThat(s.nodeName()).contains("worker-1");
        assertThat(s.reconcileInterval()).isEqualTo(Duration.ofSeconds(20));
        assertThat(s.roots().sys()).isEqualTo(Path.of("/sys"));
        assertThat(s.restoreOnExit()).isTrue();
        assertThat(s.stateDir()).isEqualTo(Path.of("/var/lib/joulie"));
        assertThat(s.packageFloorWatts()).isEqualTo(AgentSettings.DEFAULT_PACKAGE_FLOOR_WATTS);
        assertThat(s.nvmlLibrary()).isEqualTo("libnvidia-ml.so.1");
    }

    @Test
    void theStateDirectoryAndTheFloorAreChecked() {
        assertThat(AgentSettingsParser.parse(new Env().with("JOULIE_PACKAGE_FLOOR_WATTS", "0")).packageFloorWatts()).isZero();
        assertThat(AgentSettingsParser.parse(new Env().with("JOULIE_PACKAGE_FLOOR_WATTS", "35.5")).packageFloorWatts()).isEqualTo(35.5);
        assertThatThrownBy(() -> AgentSettingsParser.parse(new Env().with("JOULIE_STATE_DIR", "state")
                .with("JOULIE_PACKAGE_FLOOR_WATTS", "-1")))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("JOULIE_STATE_DIR (agent.state-dir) = 'state': must be an absolute path")
                .hasMessageContaining("JOULIE_PACKAGE_FLOOR_WATTS (agent.package-floor-watts) = '-1': must be a number of watts >= 0");
        assertThatThrownBy(() -> AgentSettingsParser.parse(new Env().with("JOULIE_PACKAGE_FLOOR_WATTS", "ten")))
                .hasMessageContaining("JOULIE_PACKAGE_FLOOR_WATTS (agent.package-floor-watts) = 'ten': is not a number");
    }

    @Test
    void theNvmlLibraryIsANameOrAnAbsolutePath() {
        assertThat(AgentSettingsParser.parse(new Env().with("JOULIE_NVML_LIBRARY", "/host/usr/lib64/libnvidia-ml.so.1")).nvmlLibrary())
                .isEqualTo("/host/usr/lib64/libnvidia-ml.so.1");
        assertThatThrownBy(() -> AgentSettingsParser.parse(new Env().with("JOULIE_NVML_LIBRARY", "lib/libnvidia-ml.so.1")))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("JOULIE_NVML_LIBRARY (agent.nvml-library) = 'lib/libnvidia-ml.so.1': a path must be absolute");
        assertThatThrownBy(() -> AgentSettingsParser.parse(new Env().with("JOULIE_NVML_LIBRARY", " ")))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("JOULIE_NVML_LIBRARY (agent.nvml-library)");
    }

    @Test
    void nodeModeNeedsNodeNamePoolModeDoesNot() {
        Env env = new Env();
        env.env.remove("NODE_NAME");
        assertThatThrownBy(() -> AgentSettingsParser.parse(env)).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("NODE_NAME (agent.node-name)");
        AgentSettings pool = AgentSettingsParser.parse(env.with("AGENT_MODE", "POOL").with("POOL_SHARDS", "4")
                .with("POOL_SHARD_ID", "3").with("POOL_NODE_SELECTOR", "type=kwok,!gpu"));
        assertThat(pool.mode()).isEqualTo(AgentMode.POOL);
        assertThat(pool.poolSelector().test(Map.of("type", "kwok"))).isTrue();
        assertThat(pool.poolSelector().test(Map.of("type", "kwok", "gpu", "a100"))).isFalse();
        assertThat(pool.poolSelector().test(Map.of())).isFalse();
    }

    @Test
    void everyBadValueIsReportedWithItsVariable() {
        Env env = new Env().with("AGENT_RECONCILE_INTERVAL", "soon").with("JOULIE_SYSFS_ROOT", "relative/sys")
                .with("JOULIE_RESTORE_ON_EXIT", "yes").with("AGENT_MODE", "cluster").with("POOL_SHARDS", "0")
                .with("POOL_SHARD_ID", "x").with("POOL_NODE_SELECTOR", "bad key=1");
        assertThatThrownBy(() -> AgentSettingsParser.parse(env)).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("AGENT_RECONCILE_INTERVAL (agent.reconcile-interval) = 'soon'")
                .hasMessageContaining("JOULIE_SYSFS_ROOT (agent.sysfs-root) = 'relative/sys': must be an absolute path")
                .hasMessageContaining("JOULIE_RESTORE_ON_EXIT (agent.restore-on-exit) = 'yes': must be true or false")
                .hasMessageContaining("AGENT_MODE (agent.mode) = 'cluster': must be node or pool")
                .hasMessageContaining("POOL_SHARDS (agent.pool-shards) = '0': must be at least 1")
                .hasMessageContaining("POOL_SHARD_ID (agent.pool-shard-id) = 'x': is not a whole number")
                .hasMessageContaining("POOL_NODE_SELECTOR (agent.pool-node-selector) = 'bad key=1'");
    }

    @Test
    void shardIdMustBeBelowShardsAndIntervalPositive() {
        assertThatThrownBy(() -> AgentSettingsParser.parse(new Env().with("POOL_SHARDS", "2").with("POOL_SHARD_ID", "2")))
                .hasMessageContaining("POOL_SHARD_ID (agent.pool-shard-id) = '2': must be in 0..POOL_SHARDS-1");
        assertThatThrownBy(() -> AgentSettingsParser.parse(new Env().with("AGENT_RECONCILE_INTERVAL", "0s")))
                .hasMessageContaining("must be greater than 0");
        assertThat(AgentSettingsParser.parse(new Env().with("AGENT_RECONCILE_INTERVAL", "1m30s")).reconcileInterval())
                .isEqualTo(Duration.ofSeconds(90));
    }
}
