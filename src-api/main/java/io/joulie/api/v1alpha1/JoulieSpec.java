package io.joulie.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.joulie.api.text.Forms;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What the operator installs and how. */
@com.fasterxml.jackson.annotation.JsonClassDescription("What the operator installs (the agent DaemonSet, monitoring objects) and how it plans (spec.policy).")
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JoulieSpec(
        @JsonPropertyDescription("The node agent DaemonSet.") Agent agent,
        @JsonPropertyDescription("Planner settings: the one place for them (an unset field takes its default). "
                + "status.effectivePolicy shows what is in force.") Policy policy,
        @JsonPropertyDescription("Prometheus and Grafana integration.") Monitoring monitoring,
        @JsonPropertyDescription("Where eco-tolerant Pods are placed: the operator's mutating admission webhook.") Placement placement) {

    public JoulieSpec(Agent agent) {
        this(agent, null, null, null);
    }

    public JoulieSpec(Agent agent, Policy policy, Monitoring monitoring) {
        this(agent, policy, monitoring, null);
    }

    /**
     * The placement of eco-tolerant Pods (decision 209): the operator registers a mutating admission webhook that gives
     * Pods annotated {@code joulie.io/workload-class: eco} a preferred node affinity for eco nodes.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Placement(
            @JsonPropertyDescription("Register the webhook that gives Pods annotated joulie.io/workload-class: eco, which say "
                    + "nothing of joulie.io/power-profile themselves, a preferred node affinity for eco nodes (default true).")
            Boolean ecoPreference,
            @JsonPropertyDescription("What the API server does with a Pod when the webhook cannot answer: Ignore (default: "
                    + "the Pod is created without the preference) or Fail (the Pod is refused).")
            @Pattern("^(Ignore|Fail)$") @Size(max = Limits.WORD) String failurePolicy,
            @JsonPropertyDescription("How long the API server waits for the webhook, 1 to 30 seconds (default 5).")
            @Min(1) @Max(30) Integer timeoutSeconds,
            @JsonPropertyDescription("Namespaces whose Pods the webhook never changes, besides kube-system and the "
                    + "operator's own.")
            @Size(max = Limits.ENTRIES) List<String> excludedNamespaces) {

        public static final Placement DEFAULT = new Placement(null, null, null, null);

        public static Placement of(JoulieSpec spec) {
            return spec == null || spec.placement() == null ? DEFAULT : spec.placement();
        }

        public boolean ecoPreferenceEnabled() {
            return ecoPreference == null || ecoPreference;
        }

        public String failurePolicyOrDefault() {
            return failurePolicy == null ? "Ignore" : failurePolicy;
        }

        public int timeoutSecondsOrDefault() {
            return timeoutSeconds == null ? 5 : timeoutSeconds;
        }

        public List<String> excludedNamespacesOrEmpty() {
            return excludedNamespaces == null ? List.of() : excludedNamespaces;
        }
    }

    /**
     * Planner settings (docs/configuration.md), the one place for them; unset fields take their default. The
     * operator's environment variables of the same meaning are honoured under them until the next release, and
     * reported (decision 136).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "!(has(self.performanceCapWatts) && has(self.performanceCapPercent))",
            message = "performanceCapWatts and performanceCapPercent are mutually exclusive")
    @ValidationRule(value = "!(has(self.ecoCapWatts) && has(self.ecoCapPercent))",
            message = "ecoCapWatts and ecoCapPercent are mutually exclusive")
    @ValidationRule(value = "!(has(self.gpuPerformanceCapWattsPerGpu) && has(self.gpuPerformanceCapPercent))",
            message = "gpuPerformanceCapWattsPerGpu and gpuPerformanceCapPercent are mutually exclusive")
    @ValidationRule(value = "!(has(self.gpuEcoCapWattsPerGpu) && has(self.gpuEcoCapPercent))",
            message = "gpuEcoCapWattsPerGpu and gpuEcoCapPercent are mutually exclusive")
    @ValidationRule(value = "!has(self.ecoCapWatts) || !has(self.performanceCapWatts) || self.ecoCapWatts <= self.performanceCapWatts",
            message = "ecoCapWatts must not be above performanceCapWatts")
    @ValidationRule(value = "!has(self.ecoCapPercent) || !has(self.performanceCapPercent) || self.ecoCapPercent <= self.performanceCapPercent",
            message = "ecoCapPercent must not be above performanceCapPercent")
    @ValidationRule(value = "!has(self.gpuEcoCapWattsPerGpu) || !has(self.gpuPerformanceCapWattsPerGpu) "
            + "|| self.gpuEcoCapWattsPerGpu <= self.gpuPerformanceCapWattsPerGpu",
            message = "gpuEcoCapWattsPerGpu must not be above gpuPerformanceCapWattsPerGpu")
    @ValidationRule(value = "!has(self.gpuEcoCapPercent) || !has(self.gpuPerformanceCapPercent) || self.gpuEcoCapPercent <= self.gpuPerformanceCapPercent",
            message = "gpuEcoCapPercent must not be above gpuPerformanceCapPercent")
    public record Policy(
            @JsonPropertyDescription("Base policy: static_partition, queue_aware_v1, demand_sized_v1 or rule_swap_v1.")
            @Pattern("^(static_partition|queue_aware_v1|demand_sized_v1|rule_swap_v1)$")
            String type,
            @JsonPropertyDescription("static_partition: share of managed nodes that run performance, 0..1.")
            @Min(0) @Max(1)
            Double staticHpFrac,
            @JsonPropertyDescription("queue_aware_v1: base share of performance nodes, 0..1.")
            @Min(0) @Max(1)
            Double queueHpBaseFrac,
            @JsonPropertyDescription("queue_aware_v1: lower bound on performance nodes.")
            @Min(0)
            Integer queueHpMin,
            @JsonPropertyDescription("queue_aware_v1: upper bound on performance nodes.")
            @Min(0)
            Integer queueHpMax,
            @JsonPropertyDescription("queue_aware_v1: performance-only pods one performance node absorbs.")
            @Min(1)
            Integer queuePerfPerHpNode,
            @JsonPropertyDescription("CPU power cap of the performance profile in watts for the node; "
                    + "instead of performanceCapPercent.")
            @Min(1)
            Double performanceCapWatts,
            @JsonPropertyDescription("CPU power cap of the performance profile, percent of each package's maximum, 0..100; "
                    + "instead of performanceCapWatts.")
            @Min(value = 0, inclusive = false) @Max(100)
            Double performanceCapPercent,
            @JsonPropertyDescription("CPU power cap of the eco profile in watts for the node; instead of ecoCapPercent.")
            @Min(1)
            Double ecoCapWatts,
            @JsonPropertyDescription("CPU power cap of the eco profile, percent of each package's maximum, 0..100; "
                    + "instead of ecoCapWatts.")
            @Min(value = 0, inclusive = false) @Max(100)
            Double ecoCapPercent,
            @JsonPropertyDescription("GPU power cap of the performance profile in watts per board; "
                    + "instead of gpuPerformanceCapPercent.")
            @Min(1)
            Double gpuPerformanceCapWattsPerGpu,
            @JsonPropertyDescription("GPU power cap of the performance profile, percent of each board's maximum, 0..100; "
                    + "instead of gpuPerformanceCapWattsPerGpu.")
            @Min(value = 0, inclusive = false) @Max(100)
            Double gpuPerformanceCapPercent,
            @JsonPropertyDescription("GPU power cap of the eco profile in watts per board; instead of "
                    + "gpuEcoCapPercent.")
            @Min(1)
            Double gpuEcoCapWattsPerGpu,
            @JsonPropertyDescription("GPU power cap of the eco profile, percent of each board's maximum, 0..100; "
                    + "instead of gpuEcoCapWattsPerGpu.")
            @Min(value = 0, inclusive = false) @Max(100)
            Double gpuEcoCapPercent,
            @JsonPropertyDescription("What a drain that outlasts downgradeTimeout does: hold, force or evict.")
            @Pattern("^(hold|force|evict)$")
            String downgradeEscalation,
            @JsonPropertyDescription("How long a node may stay DrainingPerformance before escalation, e.g. 30m.")
            @Pattern(Forms.DURATION) @Size(max = Limits.WORD)
            String downgradeTimeout,
            @JsonPropertyDescription("Planning interval, e.g. 1m.")
            @Pattern(Forms.DURATION) @Size(max = Limits.WORD)
            String reconcileInterval,
            @JsonPropertyDescription("How long a draining node must show no performance-only pod before it commits eco, "
                    + "greater than 0, e.g. 5s.")
            @Pattern(Forms.DURATION) @Size(max = Limits.WORD)
            String settleTime,
            @JsonPropertyDescription("How long a node may wait for its agent to confirm the performance cap before a Warning "
                    + "names it, e.g. 5m.")
            @Pattern(Forms.DURATION) @Size(max = Limits.WORD)
            String capConfirmationTimeout,
            @JsonPropertyDescription("At most this many nodes change state per reconcile interval, ticks and the rechecks "
                    + "between them together (rescues always go).")
            @Min(1)
            Integer maxTransitionsPerTick,
            @JsonPropertyDescription("At most this many pods are evicted per reconcile interval.")
            @Min(1)
            Integer maxEvictionsPerTick,
            @JsonPropertyDescription("demand_sized_v1: spare share of performance capacity on top of the performance-only "
                    + "demand, e.g. 0.2.")
            @Min(0)
            Double demandHeadroomFrac,
            @JsonPropertyDescription("Eco cap in watts by node type (the node.kubernetes.io/instance-type label), instead "
                    + "of ecoCapWatts or ecoCapPercent for the nodes of that type.")
            @Size(max = Limits.ENTRIES) Map<String, Double> ecoCapWattsByType,
            @JsonPropertyDescription("IANA time zone of schedule windows that name none (default UTC).")
            @Pattern(Forms.TIME_ZONE)
            @Size(max = Limits.WORD) String timeZone,
            @JsonPropertyDescription("Schedule windows, first open one wins: each sets the performance share and/or bounds.")
            @Size(max = Limits.ENTRIES) List<PolicyRulesSpec.Schedule> schedules,
            @JsonPropertyDescription("Upper bound on the managed nodes' summed power (CPU packages, and GPU boards where capped).")
            PolicyRulesSpec.PowerBudget powerBudget,
            @JsonPropertyDescription("Hot nodes and racks become the first choice for eco.")
            PolicyRulesSpec.Hotspots hotspots,
            @JsonPropertyDescription("Where the rules read measurements (Prometheus).")
            PolicyRulesSpec.Telemetry telemetry) {

        /**
         * A {@code spec.policy} with these fields set, by their names in the resource, as the API server would read
         * it: {@code Policy.of(Map.of("staticHpFrac", 0.75, "ecoCapWatts", 90.0))}. An unknown name is an error.
         */
        public static Policy of(Map<String, ?> fields) {
            return JSON.convertValue(fields, Policy.class);
        }

        /** {@link #of(Map)} with names and values alternating; a null value leaves its field unset. */
        public static Policy of(Object... namesAndValues) {
            return of(fields(namesAndValues));
        }

        /** The fields that hold rules rather than planner settings: the last ones of the record. */
        public static final List<String> RULE_FIELDS = List.of("timeZone", "schedules", "powerBudget", "hotspots", "telemetry");

        /**
         * These planner settings with the rule fields of {@code rules} (none when it is null), by name: a planner setting
         * added to the record needs nothing here.
         */
        public Policy withRulesOf(Policy rules) {
            if (rules == null) {
                return this;
            }
            Map<String, Object> fields = JSON.convertValue(this, FIELDS);
            Map<String, Object> ruleFields = JSON.convertValue(rules, FIELDS);
            for (String f : RULE_FIELDS) {
                fields.remove(f);
                if (ruleFields.get(f) != null) {
                    fields.put(f, ruleFields.get(f));
                }
            }
            return of(fields);
        }
    }

    /** Monitoring objects the operator creates next to the agents. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Monitoring(
            @JsonPropertyDescription("Create ServiceMonitors for operator and agent metrics when the Prometheus Operator "
                    + "CRDs (monitoring.coreos.com) exist (default true).")
            Boolean serviceMonitor,
            @JsonPropertyDescription("Create a ConfigMap labelled grafana_dashboard=1 holding the Joulie Grafana dashboard (default true).")
            Boolean grafanaDashboard,
            @JsonPropertyDescription("Create a PrometheusRule with Joulie's alerts when the Prometheus Operator CRDs exist (default true).")
            Boolean prometheusRules,
            @JsonPropertyDescription("Extra labels on the ServiceMonitors and the PrometheusRule, e.g. release: prometheus "
                    + "for a Prometheus whose serviceMonitorSelector/ruleSelector asks for it.")
            @Size(max = Limits.ENTRIES) Map<String, String> labels) {

        public boolean serviceMonitorEnabled() {
            return serviceMonitor == null || serviceMonitor;
        }

        public boolean grafanaDashboardEnabled() {
            return grafanaDashboard == null || grafanaDashboard;
        }

        public boolean prometheusRulesEnabled() {
            return prometheusRules == null || prometheusRules;
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "!has(self.env) || self.env.all(e, !(e.name in " + Agent.OWN_ENV + "))",
            message = "spec.agent.env must not set NODE_NAME, JOULIE_SYSFS_ROOT, JOULIE_DEV_ROOT, JOULIE_PROC_ROOT or "
                    + "JOULIE_STATE_DIR (they follow the agent's own mounts), nor JOULIE_RESTORE_ON_EXIT, "
                    + "AGENT_RECONCILE_INTERVAL or JOULIE_PACKAGE_FLOOR_WATTS (set restoreOnExit, reconcileInterval, "
                    + "packageFloorWatts)")
    @ValidationRule(value = "!has(self.volumes) || self.volumes.all(v, !(v.name in " + Agent.OWN_VOLUMES + "))",
            message = "spec.agent.volumes must not use the names of the agent's own volumes: sys, sys-devices-virtual, "
                    + "sys-cpufreq, dev-cpu, proc-cpuinfo, boot-id, state, tmp")
    @ValidationRule(value = "!has(self.volumeMounts) || self.volumeMounts.all(m, !(m.name in " + Agent.OWN_VOLUMES + ") "
            + "&& m.mountPath != '/host' && !m.mountPath.startsWith('/host/') && !(m.mountPath in " + Agent.OWN_PATHS + "))",
            message = "spec.agent.volumeMounts must mount volumes of spec.agent.volumes, and not at /host, under /host/, "
                    + "at /var/lib/joulie or at /tmp (the agent's own mounts)")
    @ValidationRule(value = "!has(self.podLabels) || !self.podLabels.exists(k, k in " + Agent.OWN_LABELS + ")",
            message = "spec.agent.podLabels must not set app.kubernetes.io/name, app.kubernetes.io/part-of or "
                    + "app.kubernetes.io/managed-by (the DaemonSet selects its pods by them)")
    public record Agent(
            @JsonPropertyDescription("Agent image; defaults to the image the operator was released with (RELATED_IMAGE_AGENT).")
            @Size(max = Limits.TEXT) String image,
            @JsonPropertyDescription("Nodes that run an agent, by label equality (key: value); with nodeLabelSelector and the "
                    + "required node affinity of affinity, all must hold. Neither set: the operator's managed-node selector "
                    + "(NODE_SELECTOR).")
            @Size(max = Limits.ENTRIES) Map<String, String> nodeSelector,
            @JsonPropertyDescription("Tolerations of the agent pods, e.g. to reach tainted HPC nodes.")
            @Size(max = Limits.ENTRIES) List<Toleration> tolerations,
            @JsonPropertyDescription("Resources of the agent container.")
            ResourceRequirements resources,
            @JsonPropertyDescription("Image pull policy: Always, IfNotPresent or Never.")
            @Pattern(Forms.PULL_POLICY)
            String imagePullPolicy,
            @JsonPropertyDescription("Restore the hardware limits found at start when the agent stops (default true).")
            Boolean restoreOnExit,
            @JsonPropertyDescription("How often the agent re-checks the hardware, e.g. 20s (default).")
            @Pattern(Forms.DURATION)
            @Size(max = Limits.WORD) String reconcileInterval,
            @JsonPropertyDescription("No CPU package gets a RAPL limit below this many watts: a node cap that would is reported "
                    + "blocked (JOULIE_PACKAGE_FLOOR_WATTS, default 10).")
            @Min(0)
            Double packageFloorWatts,
            @JsonPropertyDescription("Nodes that run an agent, as a label selector (matchLabels, matchExpressions with In, "
                    + "NotIn, Exists, DoesNotExist); it becomes the agent DaemonSet's required node affinity.")
            LabelSelector nodeLabelSelector,
            @JsonPropertyDescription("Affinity of the agent pods; its required node affinity is combined with the node "
                    + "selection above (every term must also meet the selectors).")
            Affinity affinity,
            @JsonPropertyDescription("Secrets holding the credentials to pull the agent image from a private registry "
                    + "(in the operator's namespace).")
            @Size(max = Limits.ENTRIES) List<LocalObjectReference> imagePullSecrets,
            @JsonPropertyDescription("Priority class of the agent pods, e.g. system-node-critical where the cluster allows "
                    + "it outside kube-system (default: none).")
            @Pattern(Forms.DNS_SUBDOMAIN)
            @Size(max = Limits.NAME) String priorityClassName,
            @JsonPropertyDescription("How many agent pods a rollout replaces at once, a number or a percentage of the "
                    + "nodes (default 1).")
            IntOrString maxUnavailable,
            @JsonPropertyDescription("More environment variables of the agent container, e.g. JOULIE_NVML_LIBRARY for an NVML "
                    + "library mounted from the host, or QUARKUS_LOG_LEVEL. One of the same name as the operator's replaces "
                    + "it (NVIDIA_VISIBLE_DEVICES, NVIDIA_DRIVER_CAPABILITIES); those that follow the agent's mounts or "
                    + "other fields are refused.")
            @Size(max = Limits.ENTRIES) List<EnvVar> env,
            @JsonPropertyDescription("More volumes of the agent pods, e.g. a hostPath holding the node's libnvidia-ml.so.1 "
                    + "where the NVIDIA runtime is not used; mount them with volumeMounts.")
            @Size(max = Limits.ENTRIES) List<Volume> volumes,
            @JsonPropertyDescription("Where the agent container mounts volumes of spec.agent.volumes (not at /host, under "
                    + "/host/, at /var/lib/joulie or /tmp).")
            @Size(max = Limits.ENTRIES) List<VolumeMount> volumeMounts,
            @JsonPropertyDescription("RuntimeClass of the agent pods, e.g. nvidia where the NVIDIA container runtime is a "
                    + "RuntimeClass rather than the node's default: it gives the agent NVML.")
            @Pattern(Forms.DNS_SUBDOMAIN)
            @Size(max = Limits.NAME) String runtimeClassName,
            @JsonPropertyDescription("Annotations of the agent pods.")
            @Size(max = Limits.ENTRIES) Map<String, String> podAnnotations,
            @JsonPropertyDescription("More labels of the agent pods (not the app.kubernetes.io/ name, part-of and "
                    + "managed-by labels the DaemonSet selects them by).")
            @Size(max = Limits.ENTRIES) Map<String, String> podLabels) {

        /**
         * As CEL lists, what {@code spec.agent} may not touch: the environment variables the operator sets from the
         * agent's mounts and from fields of their own, the agent's own volumes and mount paths, and the labels the
         * DaemonSet selects its pods by. The operator's AgentTemplate is checked against them (AgentTemplateTest).
         */
        public static final String OWN_ENV = "['NODE_NAME', 'JOULIE_SYSFS_ROOT', 'JOULIE_DEV_ROOT', 'JOULIE_PROC_ROOT', "
                + "'JOULIE_STATE_DIR', 'JOULIE_RESTORE_ON_EXIT', 'AGENT_RECONCILE_INTERVAL', 'JOULIE_PACKAGE_FLOOR_WATTS']";
        public static final String OWN_VOLUMES = "['sys', 'sys-devices-virtual', 'sys-cpufreq', 'dev-cpu', 'proc-cpuinfo', "
                + "'boot-id', 'state', 'tmp']";
        public static final String OWN_PATHS = "['/var/lib/joulie', '/tmp']";
        public static final String OWN_LABELS = "['app.kubernetes.io/name', 'app.kubernetes.io/part-of', "
                + "'app.kubernetes.io/managed-by']";

        private static final Agent NONE = of();

        /** A {@code spec.agent} with these fields set, by their names in the resource (see {@link Policy#of(Object...)}). */
        public static Agent of(Object... namesAndValues) {
            return JSON.convertValue(fields(namesAndValues), Agent.class);
        }

        /** The agent settings of a {@code Joulie} spec; every field unset when there are none. */
        public static Agent of(JoulieSpec spec) {
            return spec == null || spec.agent() == null ? NONE : spec.agent();
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<LinkedHashMap<String, Object>> FIELDS = new TypeReference<>() {
    };

    private static Map<String, Object> fields(Object... namesAndValues) {
        Map<String, Object> fields = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            if (namesAndValues[i + 1] != null) {
                fields.put((String) namesAndValues[i], namesAndValues[i + 1]);
            }
        }
        return fields;
    }
}
