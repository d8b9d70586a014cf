package io.joulie.operator.install;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.operator.config.OperatorSettings;
import io.joulie.operator.config.TestConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The agent DaemonSet's placement and scheduling settings, from spec.agent and the operator's NODE_SELECTOR. */
class AgentTemplateTest {
    static final KubernetesClient CLIENT = new KubernetesClientBuilder()
            .withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").withNamespace("joulie-system").build()).build();

    @AfterAll
    static void close() {
        CLIENT.close();
    }

    static AgentTemplate template(String nodeSelector) {
        TestConfig config = new TestConfig().with("NODE_SELECTOR", nodeSelector);
        return new AgentTemplate(CLIENT, config, new OperatorSettings(config));
    }

    static PodSpec pod(String nodeSelector, JoulieSpec.Agent agent) {
        Joulie j = new Joulie();
        j.getMetadata().setName("joulie");
        j.setSpec(new JoulieSpec(agent));
        DaemonSet ds = template(nodeSelector).daemonSet(j);
        return ds.getSpec().getTemplate().getSpec();
    }

    static List<String> terms(PodSpec pod) {
        return pod.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms()
                .stream().map(t -> t.getMatchExpressions().stream()
                        .map(r -> r.getKey() + " " + r.getOperator() + " " + r.getValues()).toList().toString()).toList();
    }

    /**
     * Least host privilege (decision 128): the host's sysfs read-only, recursively where the runtime can, and writable
     * only where the agent writes: /sys/devices/virtual (the powercap zones' parent on every node) and the cpufreq
     * policies; each host path with the type the kubelet checks, none the runtime would try to create in sysfs.
     */
    @Test
    void hostPathsAreReadOnlyButTheTwoWindowsTheAgentWritesThrough() {
        PodSpec pod = pod("", JoulieSpec.Agent.of());
        var container = pod.getContainers().getFirst();
        Map<String, String> hostPaths = new java.util.TreeMap<>();
        pod.getVolumes().stream().filter(v -> v.getHostPath() != null)
                .forEach(v -> hostPaths.put(v.getName(), v.getHostPath().getPath() + " " + v.getHostPath().getType()));
        assertThat(hostPaths).containsExactlyInAnyOrderEntriesOf(Map.of(
                "sys", "/sys Directory",
                "sys-devices-virtual", "/sys/devices/virtual Directory",
                "sys-cpufreq", "/sys/devices/system/cpu/cpufreq Directory",
                "dev-cpu", "/dev/cpu ",
                "proc-cpuinfo", "/proc/cpuinfo File",
                "boot-id", "/proc/sys/kernel/random/boot_id File",
                "state", "/var/lib/joulie DirectoryOrCreate"));
        assertThat(container.getVolumeMounts()).extracting(m -> m.getName() + " " + m.getMountPath() + " "
                        + (Boolean.TRUE.equals(m.getReadOnly()) ? "ro" : "rw") + (m.getRecursiveReadOnly() == null ? "" : " " + m.getRecursiveReadOnly()))
                .containsExactlyInAnyOrder(
                        "sys /host/sys ro IfPossible",
                        "sys-devices-virtual /host/sys/devices/virtual rw",
                        "sys-cpufreq /host/sys/devices/system/cpu/cpufreq rw",
                        "dev-cpu /host/dev/cpu ro",
                        "proc-cpuinfo /host/proc/cpuinfo ro",
                        "boot-id /host/proc/sys/kernel/random/boot_id ro",
                        "state /var/lib/joulie rw",
                        "tmp /tmp rw");
        assertThat(container.getVolumeMounts()).allSatisfy(m -> assertThat(m.getMountPropagation()).isNull());
        assertThat(container.getEnv()).extracting(e -> e.getName() + "=" + e.getValue())
                .contains("JOULIE_SYSFS_ROOT=/host/sys", "JOULIE_DEV_ROOT=/host/dev", "JOULIE_PROC_ROOT=/host/proc");
        var security = container.getSecurityContext();
        assertThat(security.getPrivileged()).isFalse();
        assertThat(security.getAllowPrivilegeEscalation()).isFalse();
        assertThat(security.getReadOnlyRootFilesystem()).isTrue();
        assertThat(security.getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(security.getCapabilities().getAdd()).containsExactly("SYS_RAWIO");
    }

    @Test
    void theOperatorsSelectorBecomesNodeAffinityEvenWhenSetBased() {
        assertThat(terms(pod("joulie.io/managed=true", JoulieSpec.Agent.of())))
                .containsExactly("[joulie.io/managed In [true]]");
        // A set-based NODE_SELECTOR used to fail the DaemonSet (it could only become a nodeSelector map).
        PodSpec setBased = pod("joulie.io/managed in (true,yes), !joulie.io/reserved, tier!=login", JoulieSpec.Agent.of());
        assertThat(terms(setBased)).containsExactly(
                "[joulie.io/managed In [true, yes], joulie.io/reserved DoesNotExist [], tier NotIn [login]]");
        assertThat(setBased.getNodeSelector()).isNullOrEmpty();
        assertThat(AgentTemplate.nodeSelection(setBased))
                .isEqualTo("node affinity joulie.io/managed In [true, yes], joulie.io/reserved DoesNotExist, tier NotIn [login]");
    }

    @Test
    void specAgentSelectorsReplaceTheOperatorsAndAllMustHold() {
        PodSpec pod = pod("joulie.io/managed=true", JoulieSpec.Agent.of("nodeSelector", Map.of("hpc", "true"),
                "nodeLabelSelector", new LabelSelectorBuilder().withMatchLabels(Map.of("rack", "r1"))
                        .addNewMatchExpression().withKey("gpu").withOperator("DoesNotExist").endMatchExpression().build()));
        assertThat(terms(pod)).containsExactly("[hpc In [true], rack In [r1], gpu DoesNotExist []]");
    }

    @Test
    void everyTermOfAGivenNodeAffinityAlsoMeetsTheSelectionAndOtherAffinityStays() {
        Affinity given = new AffinityBuilder().withNewNodeAffinity().withNewRequiredDuringSchedulingIgnoredDuringExecution()
                .addToNodeSelectorTerms(new NodeSelectorTerm(List.of(new NodeSelectorRequirement("zone", "In", List.of("a"))), List.of()))
                .addToNodeSelectorTerms(new NodeSelectorTerm(List.of(new NodeSelectorRequirement("zone", "In", List.of("b"))), List.of()))
                .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity()
                .withNewPodAntiAffinity().endPodAntiAffinity().build();
        PodSpec pod = pod("joulie.io/managed=true", JoulieSpec.Agent.of("affinity", given));
        assertThat(terms(pod)).containsExactly("[zone In [a], joulie.io/managed In [true]]", "[zone In [b], joulie.io/managed In [true]]");
        assertThat(pod.getAffinity().getPodAntiAffinity()).isNotNull();
        assertThat(given.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms().getFirst()
                .getMatchExpressions()).as("spec.agent.affinity itself is not changed").hasSize(1);
        assertThat(AgentTemplate.nodeSelection(pod)).isEqualTo(
                "node affinity zone In [a], joulie.io/managed In [true] or zone In [b], joulie.io/managed In [true]");
    }

    @Test
    void noSelectionAndNoAffinityIsNoNodeAffinityAtAll() {
        // an empty node selector term would match no node
        PodSpec pod = pod("", JoulieSpec.Agent.of());
        assertThat(pod.getAffinity()).isNull();
        assertThat(AgentTemplate.nodeSelection(pod)).isEqualTo("every node");
    }

    @Test
    void priorityPullSecretsAndRolloutComeFromSpecAgentWithoutAHardCodedPriority() {
        PodSpec plain = pod("joulie.io/managed=true", JoulieSpec.Agent.of());
        assertThat(plain.getPriorityClassName()).as("no hard-coded system-node-critical").isNull();
        assertThat(plain.getImagePullSecrets()).isNullOrEmpty();

        Joulie j = new Joulie();
        j.getMetadata().setName("joulie");
        j.setSpec(new JoulieSpec(JoulieSpec.Agent.of("priorityClassName", "system-node-critical",
                "imagePullSecrets", List.of(new LocalObjectReference("registry-creds")), "maxUnavailable", "10%")));
        DaemonSet ds = template("joulie.io/managed=true").daemonSet(j);
        assertThat(ds.getSpec().getTemplate().getSpec().getPriorityClassName()).isEqualTo("system-node-critical");
        assertThat(ds.getSpec().getTemplate().getSpec().getImagePullSecrets()).extracting(LocalObjectReference::getName)
                .containsExactly("registry-creds");
        assertThat(ds.getSpec().getUpdateStrategy().getRollingUpdate().getMaxUnavailable()).isEqualTo(new IntOrString("10%"));
        assertThat(template("joulie.io/managed=true").daemonSet(new Joulie()).getSpec().getUpdateStrategy().getRollingUpdate()
                .getMaxUnavailable()).isEqualTo(new IntOrString(1));
    }

    /**
     * spec.agent's customisation (issue 23 item 2): more environment variables (one of an operator's name replaces it),
     * volumes and mounts after the agent's own, a RuntimeClass, pod annotations and labels under the selector labels.
     */
    @Test
    void envVolumesRuntimeClassAnnotationsAndLabelsComeFromSpecAgent() {
        PodSpec pod = pod("", JoulieSpec.Agent.of(
                "env", List.of(new EnvVar("JOULIE_NVML_LIBRARY", "/opt/nvml/libnvidia-ml.so.1", null),
                        new EnvVar("NVIDIA_VISIBLE_DEVICES", "void", null)),
                "volumes", List.of(new VolumeBuilder().withName("nvml").withNewHostPath("/usr/lib/nvidia", "Directory").build()),
                "volumeMounts", List.of(new VolumeMountBuilder().withName("nvml").withMountPath("/opt/nvml").withReadOnly(true).build()),
                "runtimeClassName", "nvidia"));
        Container agent = pod.getContainers().getFirst();
        Map<String, String> env = agent.getEnv().stream().filter(e -> e.getValue() != null)
                .collect(java.util.stream.Collectors.toMap(EnvVar::getName, EnvVar::getValue));
        assertThat(env).containsEntry("JOULIE_NVML_LIBRARY", "/opt/nvml/libnvidia-ml.so.1").containsEntry("NVIDIA_VISIBLE_DEVICES", "void")
                .containsEntry("JOULIE_SYSFS_ROOT", "/host/sys");
        assertThat(agent.getEnv()).extracting(EnvVar::getName).as("one entry a name (server-side apply keys env by name)")
                .doesNotHaveDuplicates();
        assertThat(pod.getVolumes()).extracting(Volume::getName).endsWith("tmp", "nvml");
        assertThat(agent.getVolumeMounts()).extracting(VolumeMount::getMountPath).endsWith("/tmp", "/opt/nvml");
        assertThat(pod.getRuntimeClassName()).isEqualTo("nvidia");
        assertThat(pod("", JoulieSpec.Agent.of()).getRuntimeClassName()).isNull();

        Joulie j = new Joulie();
        j.getMetadata().setName("joulie");
        j.setSpec(new JoulieSpec(JoulieSpec.Agent.of("podAnnotations", Map.of("example.com/team", "hpc"),
                "podLabels", Map.of("tier", "node-agents"))));
        DaemonSet ds = template("").daemonSet(j);
        assertThat(ds.getSpec().getTemplate().getMetadata().getAnnotations()).containsExactly(Map.entry("example.com/team", "hpc"));
        assertThat(ds.getSpec().getTemplate().getMetadata().getLabels()).containsEntry("tier", "node-agents")
                .containsAllEntriesOf(ds.getSpec().getSelector().getMatchLabels());
    }

    /** What the CRD refuses in spec.agent (JoulieSpec.Agent's CEL lists) is exactly what the template sets itself. */
    @Test
    void theCrdsListsOfWhatSpecAgentMayNotTouchAreTheTemplatesOwn() {
        PodSpec pod = pod("", JoulieSpec.Agent.of("reconcileInterval", "5s", "packageFloorWatts", 12.0));
        Container agent = pod.getContainers().getFirst();
        List<String> nvidia = List.of("NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES");
        assertThat(celList(JoulieSpec.Agent.OWN_ENV)).containsExactlyInAnyOrderElementsOf(agent.getEnv().stream()
                .map(EnvVar::getName).filter(n -> !nvidia.contains(n)).toList());
        assertThat(celList(JoulieSpec.Agent.OWN_VOLUMES)).containsExactlyInAnyOrderElementsOf(
                pod.getVolumes().stream().map(Volume::getName).toList());
        List<String> paths = agent.getVolumeMounts().stream().map(VolumeMount::getMountPath).toList();
        assertThat(paths).allSatisfy(p -> assertThat(p.startsWith("/host/") || celList(JoulieSpec.Agent.OWN_PATHS).contains(p))
                .as(p + ": under /host/ or in OWN_PATHS").isTrue());
        assertThat(celList(JoulieSpec.Agent.OWN_PATHS)).allSatisfy(p -> assertThat(paths).contains(p));
        assertThat(celList(JoulieSpec.Agent.OWN_LABELS)).containsExactlyInAnyOrderElementsOf(AgentTemplate.LABELS.keySet());
    }

    static List<String> celList(String list) {
        return java.util.Arrays.stream(list.replaceAll("[\\[\\]' ]", "").split(",")).toList();
    }
}
