package io.joulie.operator.install;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.HostPathVolumeSource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBindingBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.operator.config.OperatorConfig;
import io.joulie.operator.config.OperatorSettings;
import io.quarkus.arc.Unremovable;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The desired agent objects for a {@code Joulie} resource: its DaemonSet (running as the ServiceAccount
 * {@code joulie-agent} the install creates) and metrics Service, and the operator's metrics Service, all in
 * the operator's namespace. The agent gets only what RAPL, MSR, cpufreq and NVML access need (NVML through the
 * NVIDIA container toolkit where it runs):
 * host {@code /sys} and {@code /dev/cpu} mounted, root (sysfs files are root-owned), every capability
 * dropped but {@code SYS_RAWIO} (reading {@code /dev/cpu/N/msr}), no privilege escalation, a read-only
 * root file system, and not {@code privileged} (docs/install.md). The host directory {@code /var/lib/joulie} keeps what
 * the agent found on the hardware before its first write across agent restarts, and the kernel's boot id tells the
 * agent whether the node rebooted since (docs/agent-host.md).
 */
@Unremovable // looked up by the JOSDK dependents, which are not CDI beans
@ApplicationScoped
public class AgentTemplate {
    /** The agent container's memory request and limit when {@code spec.agent.resources} sets none (decision 73). */
    static final String DEFAULT_MEMORY_REQUEST = "128Mi";
    static final String DEFAULT_MEMORY_LIMIT = "160Mi";

    public static final String NAME = "joulie-agent";
    static final Map<String, String> LABELS = Map.of("app.kubernetes.io/name", NAME, "app.kubernetes.io/part-of", "joulie",
            "app.kubernetes.io/managed-by", "joulie-operator");
    static final int METRICS_PORT = 9000;
    /** Where the agent keeps the originals across its restarts, on the host and in the container (JOULIE_STATE_DIR). */
    static final String STATE_DIR = "/var/lib/joulie";
    static final String BOOT_ID = "/proc/sys/kernel/random/boot_id";
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

    public AgentTemplate(KubernetesClient client, OperatorConfig config, OperatorSettings settings) {
        // The namespace the operator runs in (the client's, in a pod); the dependents watch the same one.
        this.namespace = Optional.ofNullable(client.getNamespace()).or(config::podNamespace).orElse("joulie-system");
        this.defaultImage = config.agent().image();
        this.settings = settings;
        List<?> admission = (List<?>) client.getKubernetesSerialization().unmarshal(
                MonitoringTemplate.read(ADMISSION_FILE).replace("NAMESPACE", namespace));
        this.admissionPolicy = (ValidatingAdmissionPolicy) admission.get(0);
        this.admissionBinding = (ValidatingAdmissionPolicyBinding) admission.get(1);
    }

    /**
     * The admission policy that lets the agent ServiceAccount write only what belongs to its own node (the node-name
     * claim of its Pod-bound token): the node-scoped TelemetryProfile of that node, and the feature.joulie.io/ labels
     * of that Node. The operator creates it, like the Services: an OLM bundle cannot ship admission policies, and both
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

    private static JoulieSpec.Agent agent(Joulie j) {
        JoulieSpec.Agent a = j.getSpec() == null ? null : j.getSpec().agent();
        return a != null ? a : new JoulieSpec.Agent(null, null, null, null, null, null, null);
    }

    /** The nodes agents run on: spec.agent.nodeSelector, else the operator's managed-node selector. */
    public Map<String, String> nodeSelector(Joulie j) {
        Map<String, String> explicit = agent(j).nodeSelector();
        if (explicit != null) {
            return explicit;
        }
        return settings.nodeSelector().asEqualityMap().orElseThrow(() -> new IllegalArgumentException(
                "NODE_SELECTOR '" + settings.nodeSelector() + "' is not a list of key=value pairs; set spec.agent.nodeSelector"));
    }

    public Service metricsService(Joulie j) {
        return new ServiceBuilder().withMetadata(meta())
                .withNewSpec().withSelector(LABELS).withClusterIP("None")
                .addNewPort().withName("metrics").withPort(METRICS_PORT).withNewTargetPort(METRICS_PORT).endPort()
                .endSpec().build();
    }

    /**
     * The Service in front of the operator's management port, so that a ServiceMonitor can find its metrics.
     * The operator creates it, like the agent's: an OLM bundle cannot ship Services, and both install ways
     * get the same objects.
     */
    public Service operatorMetricsService(Joulie j) {
        return new ServiceBuilder().withNewMetadata().withName(OPERATOR_METRICS).withNamespace(namespace)
                .withLabels(Map.of("app.kubernetes.io/name", OPERATOR_METRICS, "app.kubernetes.io/part-of", "joulie",
                        "app.kubernetes.io/managed-by", "joulie-operator"))
                .endMetadata()
                .withNewSpec().withSelector(OPERATOR_POD).withClusterIP("None")
                .addNewPort().withName("metrics").withPort(METRICS_PORT).withNewTargetPort(METRICS_PORT).endPort()
                .endSpec().build();
    }

    public DaemonSet daemonSet(Joulie j) {
        JoulieSpec.Agent a = agent(j);
        List<EnvVar> env = new ArrayList<>(List.of(
                new EnvVarBuilder().withName("NODE_NAME").withNewValueFrom().withNewFieldRef().withFieldPath("spec.nodeName")
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
        // From the agent's footprint run (AgentFootprintIT, docs/benchmarks.md): about 115 MiB that no reclaim frees
        ResourceRequirements resources = a.resources() != null ? a.resources() : new ResourceRequirementsBuilder()
                .addToRequests("cpu", new Quantity("20m")).addToRequests("memory", new Quantity(DEFAULT_MEMORY_REQUEST))
                .addToLimits("memory", new Quantity(DEFAULT_MEMORY_LIMIT)).build();
        return new DaemonSetBuilder().withMetadata(meta())
                .withNewSpec()
                .withNewSelector().withMatchLabels(Map.of("app.kubernetes.io/name", NAME)).endSelector()
                .withNewUpdateStrategy().withType("RollingUpdate").endUpdateStrategy()
                .withNewTemplate()
                .withNewMetadata().withLabels(LABELS).endMetadata()
                .withNewSpec()
                .withServiceAccountName(NAME)
                .withNodeSelector(nodeSelector(j))
                .withTolerations(a.tolerations())
                .withPriorityClassName("system-node-critical")
                .withTerminationGracePeriodSeconds(30L)
                .addToContainers(new ContainerBuilder()
                        .withName("agent")
                        .withImage(a.image() != null ? a.image() : defaultImage)
                        .withImagePullPolicy(a.imagePullPolicy() != null ? a.imagePullPolicy() : "IfNotPresent")
                        .withEnv(env)
                        .withResources(resources)
                        .addNewPort().withName("metrics").withContainerPort(METRICS_PORT).endPort()
                        .withNewLivenessProbe().withNewHttpGet().withPath("/q/health/live").withNewPort(METRICS_PORT).endHttpGet()
                        .withPeriodSeconds(20).endLivenessProbe()
                        .withNewReadinessProbe().withNewHttpGet().withPath("/q/health/ready").withNewPort(METRICS_PORT).endHttpGet()
                        .withPeriodSeconds(10).endReadinessProbe()
                        .withNewSecurityContext()
                        .withRunAsUser(0L).withRunAsNonRoot(false).withPrivileged(false).withAllowPrivilegeEscalation(false)
                        .withReadOnlyRootFilesystem(true)
                        .withNewCapabilities().withDrop("ALL").withAdd("SYS_RAWIO").endCapabilities()
                        .endSecurityContext()
                        .addNewVolumeMount().withName("sys").withMountPath("/host/sys").endVolumeMount()
                        .addNewVolumeMount().withName("dev-cpu").withMountPath("/host/dev/cpu").withReadOnly(true).endVolumeMount()
                        .addNewVolumeMount().withName("proc-cpuinfo").withMountPath("/host/proc/cpuinfo").withReadOnly(true).endVolumeMount()
                        .addNewVolumeMount().withName("boot-id").withMountPath("/host" + BOOT_ID).withReadOnly(true).endVolumeMount()
                        .addNewVolumeMount().withName("state").withMountPath(STATE_DIR).endVolumeMount()
                        .addNewVolumeMount().withName("tmp").withMountPath("/tmp").endVolumeMount()
                        .build())
                .addNewVolume().withName("sys").withHostPath(new HostPathVolumeSource("/sys", "Directory")).endVolume()
                .addNewVolume().withName("dev-cpu").withHostPath(new HostPathVolumeSource("/dev/cpu", "")).endVolume()
                .addNewVolume().withName("proc-cpuinfo").withHostPath(new HostPathVolumeSource("/proc/cpuinfo", "File")).endVolume()
                .addNewVolume().withName("boot-id").withHostPath(new HostPathVolumeSource(BOOT_ID, "File")).endVolume()
                .addNewVolume().withName("state").withHostPath(new HostPathVolumeSource(STATE_DIR, "DirectoryOrCreate")).endVolume()
                .addNewVolume().withName("tmp").withNewEmptyDir().endEmptyDir().endVolume()
                .endSpec()
                .endTemplate()
                .endSpec().build();
    }
}
