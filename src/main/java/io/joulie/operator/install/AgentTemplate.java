package io.joulie.operator.install;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.HostPathVolumeSource;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeAffinity;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBindingBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.openshift.api.model.SecurityContextConstraints;
import io.fabric8.openshift.api.model.SecurityContextConstraintsBuilder;
import io.joulie.api.text.LabelSelector;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.operator.config.OperatorConfig;
import io.joulie.operator.config.OperatorNamespace;
import io.joulie.operator.config.OperatorSettings;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The desired agent objects for a {@code Joulie} resource: its DaemonSet (running as the ServiceAccount
 * {@code joulie-agent} the install creates) and metrics Service, and the operator's metrics Service, all in
 * the operator's namespace. The agent gets only what RAPL, MSR, cpufreq and NVML access need (NVML through the
 * NVIDIA container toolkit where it runs):
 * host {@code /sys} read-only with two writable windows ({@code /sys/devices/virtual}, which holds the powercap zones,
 * and the cpufreq policies), {@code /dev/cpu} read-only, root (sysfs files are root-owned), every capability
 * dropped but {@code SYS_RAWIO} (reading {@code /dev/cpu/N/msr}), no privilege escalation, a read-only
 * root file system, and not {@code privileged} (docs/install.md, decision 128). The host directory
 * {@code /var/lib/joulie} keeps what the agent found on the hardware before its first write across agent restarts, and
 * the kernel's boot id tells the agent whether the node rebooted since (docs/agent-host.md).
 */
@ApplicationScoped
public class AgentTemplate {
    /** The agent container's memory request and limit when {@code spec.agent.resources} sets none (decision 73). */
    static final String DEFAULT_MEMORY_REQUEST = "128Mi";
    static final String DEFAULT_MEMORY_LIMIT = "160Mi";

    public static final String NAME = "joulie-agent";
    static final String NAME_LABEL = "app.kubernetes.io/name";
    static final Map<String, String> LABELS = Map.of(NAME_LABEL, NAME, "app.kubernetes.io/part-of", "joulie",
            "app.kubernetes.io/managed-by", "joulie-operator");
    static final int METRICS_PORT = 9000;
    /** Where the agent keeps the originals across its restarts, on the host and in the container (JOULIE_STATE_DIR). */
    static final String STATE_DIR = "/var/lib/joulie";
    static final String BOOT_ID = "/proc/sys/kernel/random/boot_id";
    /**
     * The narrowest host directory that holds every powercap zone and exists on every Linux node: the zones are devices
     * under {@code /sys/devices/virtual/powercap/<control type>/}, but that directory exists only where a powercap driver
     * registered, and a missing hostPath source fails the Pod (the kubelet's type check; without a type, the runtime's
     * mkdir, which sysfs refuses): the agent would not run on any node without RAPL (VMs, ARM GPU servers), where it is
     * still needed for the GPUs.
     */
    static final String POWERCAP_PARENT = "/sys/devices/virtual";
    /** The cpufreq policies ({@code policyN/scaling_max_freq}); present on every kernel built with CONFIG_CPU_FREQ. */
    static final String CPUFREQ = "/sys/devices/system/cpu/cpufreq";
    static final String SYS_DEVICES_VIRTUAL = "sys-devices-virtual";
    static final String SYS_CPUFREQ = "sys-cpufreq";
    /** The Service in front of the operator's own management port (metrics). */
    public static final String OPERATOR_METRICS = "joulie-operator-metrics";
    /** The operator pods' label, from the generated Deployment (kubernetes/20-operator.yml, the CSV). */
    static final Map<String, String> OPERATOR_POD = Map.of("app.kubernetes.io/name", "joulie-operator");

    private final String namespace;
    private final String defaultImage;
    private final OperatorSettings settings;

    /** The ValidatingAdmissionPolicy (and its binding) that keeps each agent to its own node. */
    public static final String ADMISSION_POLICY = "joulie-agent-node-scope";
    private static final String ADMISSION_FILE = "admission/joulie-agent-node-scope.yaml";

    private final ValidatingAdmissionPolicy admissionPolicy;
    private final ValidatingAdmissionPolicyBinding admissionBinding;

    /** The OpenShift SCC the agent's pods are admitted under, where that API exists (decision 111). */
    public static final String SCC = "joulie-agent";
    static final String SCC_FILE = "openshift/joulie-agent-scc.yaml";
    private final SecurityContextConstraints scc;

    public AgentTemplate(KubernetesClient client, OperatorConfig config, OperatorSettings settings) {
        // The namespace the operator runs in (the client's, in a pod); the dependents watch the same one.
        this.namespace = OperatorNamespace.of(client, config);
        this.defaultImage = config.agent().image();
        this.settings = settings;
        List<?> admission = (List<?>) client.getKubernetesSerialization().unmarshal(
                MonitoringTemplate.read(ADMISSION_FILE).replace("NAMESPACE", namespace));
        this.admissionPolicy = (ValidatingAdmissionPolicy) admission.get(0);
        this.admissionBinding = (ValidatingAdmissionPolicyBinding) admission.get(1);
        this.scc = client.getKubernetesSerialization().unmarshal(MonitoringTemplate.read(SCC_FILE), SecurityContextConstraints.class);
    }

    /**
     * The SCC {@code joulie-agent} as {@code src/main/resources/openshift/joulie-agent-scc.yaml} says: exactly what the
     * agent DaemonSet asks for. OpenShift admits a pod only under an SCC its ServiceAccount may use, and none of the
     * built-in ones fits the agent without granting far more; an OLM bundle cannot ship this kind.
     */
    public SecurityContextConstraints scc(Joulie j) {
        return new SecurityContextConstraintsBuilder(scc).editMetadata().withLabels(LABELS).endMetadata().build();
    }

    /**
     * The admission policy that lets the agent ServiceAccount write only what belongs to its own node (the node-name
     * claim of its Pod-bound token): the node-scoped TelemetryProfile of that node, and the feature.joulie.io/ labels
     * of that Node. The operator creates it, as it does the Services: an OLM bundle cannot ship admission policies, and both
     * install ways get the same objects.
     */
    public ValidatingAdmissionPolicy admissionPolicy(Joulie j) {
        return new ValidatingAdmissionPolicyBuilder(admissionPolicy).editMetadata().withLabels(LABELS).endMetadata().build();
    }

    /** The binding that puts {@link #admissionPolicy} in force (Deny). */
    public ValidatingAdmissionPolicyBinding admissionPolicyBinding(Joulie j) {
        return new ValidatingAdmissionPolicyBindingBuilder(admissionBinding).editMetadata().withLabels(LABELS).endMetadata().build();
    }

    private ObjectMeta meta() {
        return new ObjectMetaBuilder().withName(NAME).withNamespace(namespace).withLabels(LABELS).build();
    }

    /** Whether an Event is about the agent DaemonSet or one of its pods (named after it by the DaemonSet controller). */
    static boolean isAboutAgents(io.fabric8.kubernetes.api.model.Event e) {
        var o = e.getInvolvedObject();
        return o != null && o.getName() != null && ("DaemonSet".equals(o.getKind()) && NAME.equals(o.getName())
                || "Pod".equals(o.getKind()) && o.getName().startsWith(NAME + "-"));
    }

    /**
     * The nodes agents run on, as node selector requirements that must all hold: {@code spec.agent.nodeSelector}
     * (equality) and {@code spec.agent.nodeLabelSelector}, else the operator's managed-node selector
     * ({@code NODE_SELECTOR}, set-based requirements included). Empty: every node.
     */
    List<NodeSelectorRequirement> nodeRequirements(JoulieSpec.Agent a) {
        List<NodeSelectorRequirement> out = new ArrayList<>();
        if (a.nodeSelector() == null && a.nodeLabelSelector() == null) {
            for (LabelSelector.Requirement r : settings.nodeSelector().requirements()) {
                out.add(new NodeSelectorRequirement(r.key(), r.operator().name(), r.values()));
            }
            return out;
        }
        if (a.nodeSelector() != null) {
            new TreeMap<>(a.nodeSelector()).forEach((k, v) -> out.add(new NodeSelectorRequirement(k, "In", List.of(v))));
        }
        io.fabric8.kubernetes.api.model.LabelSelector selector = a.nodeLabelSelector();
        if (selector != null) {
            if (selector.getMatchLabels() != null) {
                new TreeMap<>(selector.getMatchLabels()).forEach((k, v) -> out.add(new NodeSelectorRequirement(k, "In", List.of(v))));
            }
            if (selector.getMatchExpressions() != null) {
                for (LabelSelectorRequirement e : selector.getMatchExpressions()) {
                    out.add(new NodeSelectorRequirement(e.getKey(), e.getOperator(), e.getValues()));
                }
            }
        }
        return out;
    }

    /**
     * The agent pods' affinity: {@code spec.agent.affinity} with every term of its required node affinity also
     * holding the node requirements (terms are alternatives, so each must meet them); without such terms, one term
     * of the requirements alone. No requirement and no term: no node affinity (an empty term would match no node).
     */
    Affinity affinity(JoulieSpec.Agent a) {
        List<NodeSelectorRequirement> required = nodeRequirements(a);
        Affinity affinity = a.affinity() == null ? new Affinity() : new AffinityBuilder(a.affinity()).build();
        NodeAffinity node = affinity.getNodeAffinity() == null ? new NodeAffinity() : affinity.getNodeAffinity();
        NodeSelector given = node.getRequiredDuringSchedulingIgnoredDuringExecution();
        List<NodeSelectorTerm> terms = given == null || given.getNodeSelectorTerms() == null
                ? List.of() : given.getNodeSelectorTerms();
        if (terms.isEmpty()) {
            if (required.isEmpty()) {
                return affinity.getNodeAffinity() == null && affinity.getPodAffinity() == null
                        && affinity.getPodAntiAffinity() == null ? null : affinity;
            }
            terms = List.of(new NodeSelectorTerm(List.of(), List.of()));
        }
        List<NodeSelectorTerm> combined = new ArrayList<>();
        for (NodeSelectorTerm t : terms) {
            List<NodeSelectorRequirement> expressions = new ArrayList<>(
                    t.getMatchExpressions() == null ? List.of() : t.getMatchExpressions());
            expressions.addAll(required);
            combined.add(new NodeSelectorTermBuilder(t).withMatchExpressions(expressions).build());
        }
        node.setRequiredDuringSchedulingIgnoredDuringExecution(new NodeSelector(combined));
        affinity.setNodeAffinity(node);
        return affinity;
    }

    /** How a pod template selects its nodes, in words, for a status message (e.g. when it selects none). */
    public static String nodeSelection(PodSpec pod) {
        List<String> parts = new ArrayList<>();
        if (pod.getNodeSelector() != null && !pod.getNodeSelector().isEmpty()) {
            parts.add("nodeSelector " + new TreeMap<>(pod.getNodeSelector()));
        }
        NodeSelector required = pod.getAffinity() == null || pod.getAffinity().getNodeAffinity() == null ? null
                : pod.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
        if (required != null && required.getNodeSelectorTerms() != null) {
            List<String> terms = new ArrayList<>();
            for (NodeSelectorTerm t : required.getNodeSelectorTerms()) {
                List<String> expressions = new ArrayList<>();
                for (NodeSelectorRequirement r : t.getMatchExpressions() == null ? List.<NodeSelectorRequirement>of() : t.getMatchExpressions()) {
                    expressions.add(r.getKey() + " " + r.getOperator()
                            + (r.getValues() == null || r.getValues().isEmpty() ? "" : " " + r.getValues()));
                }
                terms.add(String.join(", ", expressions));
            }
            parts.add("node affinity " + String.join(" or ", terms));
        }
        return parts.isEmpty() ? "every node" : String.join(" and ", parts);
    }

    public Service metricsService(Joulie j) {
        return new ServiceBuilder().withMetadata(meta())
                .withNewSpec().withSelector(LABELS).withClusterIP("None")
                .addNewPort().withName("metrics").withProtocol("TCP").withPort(METRICS_PORT).withNewTargetPort(METRICS_PORT).endPort()
                .endSpec().build();
    }

    /**
     * The Service in front of the operator's management port, so that a ServiceMonitor can find its metrics.
     * The operator creates it, like the agent's, so that every install way (manifests, kustomize, Helm, OLM) gets
     * the same object.
     */
    public Service operatorMetricsService(Joulie j) {
        return new ServiceBuilder().withNewMetadata().withName(OPERATOR_METRICS).withNamespace(namespace)
                .withLabels(Map.of("app.kubernetes.io/name", OPERATOR_METRICS, "app.kubernetes.io/part-of", "joulie",
                        "app.kubernetes.io/managed-by", "joulie-operator"))
                .endMetadata()
                .withNewSpec().withSelector(OPERATOR_POD).withClusterIP("None")
                .addNewPort().withName("metrics").withProtocol("TCP").withPort(METRICS_PORT).withNewTargetPort(METRICS_PORT).endPort()
                .endSpec().build();
    }

    /**
     * The agent DaemonSet. Where the API server would default a field inside an atomic struct or a list key (the field
     * reference's {@code apiVersion}, a port's {@code protocol}) it is written out: server-side apply owns such a part
     * whole, and JOSDK's matcher would see the default as a difference on every reconcile (decision 132).
     */
    public DaemonSet daemonSet(Joulie j) {
        JoulieSpec.Agent a = JoulieSpec.Agent.of(j.getSpec());
        List<EnvVar> env = new ArrayList<>(List.of(
                new EnvVarBuilder().withName("NODE_NAME").withNewValueFrom().withNewFieldRef().withApiVersion("v1").withFieldPath("spec.nodeName")
                        .endFieldRef().endValueFrom().build(),
                new EnvVar("JOULIE_SYSFS_ROOT", "/host/sys", null),
                new EnvVar("JOULIE_DEV_ROOT", "/host/dev", null),
                new EnvVar("JOULIE_PROC_ROOT", "/host/proc", null),
                new EnvVar("JOULIE_STATE_DIR", STATE_DIR, null),
                new EnvVar("JOULIE_RESTORE_ON_EXIT", String.valueOf(a.restoreOnExit() == null || a.restoreOnExit()), null),
                // On GPU nodes the NVIDIA container toolkit injects libnvidia-ml.so.1 and the device nodes into a
                // container that asks for them (docs/install.md, GPUs); elsewhere these change nothing.
                new EnvVar("NVIDIA_VISIBLE_DEVICES", "all", null),
                new EnvVar("NVIDIA_DRIVER_CAPABILITIES", "utility", null)));
        if (a.reconcileInterval() != null) {
            env.add(new EnvVar("AGENT_RECONCILE_INTERVAL", a.reconcileInterval(), null));
        }
        if (a.packageFloorWatts() != null) {
            env.add(new EnvVar("JOULIE_PACKAGE_FLOOR_WATTS", String.valueOf(a.packageFloorWatts()), null));
        }
        // spec.agent.env: one of a name the operator sets replaces it (the CRD refuses those that must not change)
        for (EnvVar e : a.env() == null ? List.<EnvVar>of() : a.env()) {
            env.removeIf(own -> own.getName().equals(e.getName()));
            env.add(e);
        }
        Map<String, String> podLabels = new TreeMap<>(a.podLabels() == null ? Map.of() : a.podLabels());
        podLabels.putAll(LABELS);
        // From the agent's footprint run (AgentFootprintIT, docs/benchmarks.md): about 115 MiB that no reclaim frees
        ResourceRequirements resources = a.resources() != null ? a.resources() : new ResourceRequirementsBuilder()
                .addToRequests("cpu", new Quantity("20m")).addToRequests("memory", new Quantity(DEFAULT_MEMORY_REQUEST))
                .addToLimits("memory", new Quantity(DEFAULT_MEMORY_LIMIT)).build();
        return new DaemonSetBuilder().withMetadata(meta())
                .withNewSpec()
                .withNewSelector().withMatchLabels(Map.of(NAME_LABEL, NAME)).endSelector()
                .withNewUpdateStrategy().withType("RollingUpdate")
                .withNewRollingUpdate().withMaxUnavailable(a.maxUnavailable() != null ? a.maxUnavailable() : new IntOrString(1))
                .endRollingUpdate().endUpdateStrategy()
                .withNewTemplate()
                .withNewMetadata().withLabels(podLabels).withAnnotations(a.podAnnotations()).endMetadata()
                .withNewSpec()
                .withServiceAccountName(NAME)
                .withRuntimeClassName(a.runtimeClassName())
                .withAffinity(affinity(a))
                .withTolerations(a.tolerations())
                .withImagePullSecrets(a.imagePullSecrets())
                .withPriorityClassName(a.priorityClassName())
                .withTerminationGracePeriodSeconds(30L)
                .addToContainers(new ContainerBuilder()
                        .withName("agent")
                        .withImage(a.image() != null ? a.image() : defaultImage)
                        .withImagePullPolicy(a.imagePullPolicy() != null ? a.imagePullPolicy() : "IfNotPresent")
                        .withEnv(env)
                        .withResources(resources)
                        .addNewPort().withName("metrics").withProtocol("TCP").withContainerPort(METRICS_PORT).endPort()
                        .withNewLivenessProbe().withNewHttpGet().withPath("/q/health/live").withNewPort(METRICS_PORT).endHttpGet()
                        .withPeriodSeconds(20).endLivenessProbe()
                        .withNewReadinessProbe().withNewHttpGet().withPath("/q/health/ready").withNewPort(METRICS_PORT).endHttpGet()
                        .withPeriodSeconds(10).endReadinessProbe()
                        .withNewSecurityContext()
                        .withRunAsUser(0L).withRunAsNonRoot(false).withPrivileged(false).withAllowPrivilegeEscalation(false)
                        .withReadOnlyRootFilesystem(true)
                        .withNewCapabilities().withDrop("ALL").withAdd("SYS_RAWIO").endCapabilities()
                        .endSecurityContext()
                        // The host's sysfs read-only (recursively where the runtime can), with writable windows onto the two
                        // places the agent writes: the powercap zones' limits and the cpufreq policies' ceilings (decision 128)
                        .addNewVolumeMount().withName("sys").withMountPath("/host/sys").withReadOnly(true)
                        .withRecursiveReadOnly("IfPossible").endVolumeMount()
                        .addNewVolumeMount().withName(SYS_DEVICES_VIRTUAL).withMountPath("/host" + POWERCAP_PARENT).endVolumeMount()
                        .addNewVolumeMount().withName(SYS_CPUFREQ).withMountPath("/host" + CPUFREQ).endVolumeMount()
                        .addNewVolumeMount().withName("dev-cpu").withMountPath("/host/dev/cpu").withReadOnly(true).endVolumeMount()
                        .addNewVolumeMount().withName("proc-cpuinfo").withMountPath("/host/proc/cpuinfo").withReadOnly(true).endVolumeMount()
                        .addNewVolumeMount().withName("boot-id").withMountPath("/host" + BOOT_ID).withReadOnly(true).endVolumeMount()
                        .addNewVolumeMount().withName("state").withMountPath(STATE_DIR).endVolumeMount()
                        .addNewVolumeMount().withName("tmp").withMountPath("/tmp").endVolumeMount()
                        .addAllToVolumeMounts(a.volumeMounts() == null ? List.of() : a.volumeMounts())
                        .build())
                .addNewVolume().withName("sys").withHostPath(new HostPathVolumeSource("/sys", "Directory")).endVolume()
                .addNewVolume().withName(SYS_DEVICES_VIRTUAL).withHostPath(new HostPathVolumeSource(POWERCAP_PARENT, "Directory")).endVolume()
                .addNewVolume().withName(SYS_CPUFREQ).withHostPath(new HostPathVolumeSource(CPUFREQ, "Directory")).endVolume()
                .addNewVolume().withName("dev-cpu").withHostPath(new HostPathVolumeSource("/dev/cpu", "")).endVolume()
                .addNewVolume().withName("proc-cpuinfo").withHostPath(new HostPathVolumeSource("/proc/cpuinfo", "File")).endVolume()
                .addNewVolume().withName("boot-id").withHostPath(new HostPathVolumeSource(BOOT_ID, "File")).endVolume()
                .addNewVolume().withName("state").withHostPath(new HostPathVolumeSource(STATE_DIR, "DirectoryOrCreate")).endVolume()
                .addNewVolume().withName("tmp").withNewEmptyDir().endEmptyDir().endVolume()
                .addAllToVolumes(a.volumes() == null ? List.of() : a.volumes())
                .endSpec()
                .endTemplate()
                .endSpec().build();
    }
}
