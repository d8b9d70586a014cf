package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.joulie.harness.JavaApp;
import io.joulie.testkit.FakeHost;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;

/**
 * A real node in the e2e control plane: Debian's containerd and runc and a kubelet built with the control plane
 * ({@code hack/control-plane/build.sh}), run as PID 1 of a private mount and PID namespace ({@code real-node/node.sh}
 * under {@code unshare}), in which a {@link FakeHost} stands where a server has its hardware. Pods on it use the host
 * network (the node's only CNI plugin is {@code loopback}, and every address stays on loopback); {@link #networkShim}
 * is the mutating admission policy that plays this node's network plugin for the Pods of one namespace. Images come
 * from local OCI archives ({@link #importImage}); the sandbox image is a static {@code pause} built here with gcc.
 *
 * <p>What it needs, checked by {@link #missing()}: root, {@code unshare}, {@code containerd}, {@code runc}, {@code ctr},
 * the CNI {@code loopback} plugin ({@code containernetworking-plugins}), {@code gcc} with a static libc, and cgroup v1
 * or v2 mounted at {@code /sys/fs/cgroup}. {@code .ci/run} installs the packages; {@code -De2e.realnode=skip} skips
 * the real-node scenarios explicitly.
 */
public final class RealNode implements AutoCloseable {
    /** The node's name (its kubelet authenticates as {@code system:node:real-0}, a static token of the control plane). */
    public static final String NAME = "real-0";
    public static final String SANDBOX_IMAGE = "registry.k8s.io/pause:3.10";
    static final List<Path> CNI_DIRS = List.of(Path.of("/usr/lib/cni"), Path.of("/opt/cni/bin"));
    static final Duration READY_TIMEOUT = Duration.ofSeconds(120);

    private final ControlPlane controlPlane;
    private final Path work;
    private final FakeHost host;
    private final Path sockets;
    private final Path socket;
    private final Process process;
    private final Instant started = Instant.now();
    private final FileChannel lock;

    private RealNode(ControlPlane controlPlane, Path work, FakeHost host, Path sockets, Path socket, Process process,
            FileChannel lock) {
        this.controlPlane = controlPlane;
        this.work = work;
        this.host = host;
        this.sockets = sockets;
        this.socket = socket;
        this.process = process;
        this.lock = lock;
    }

    /**
     * One real node per machine at a time: kubelets share the machine's {@code kubepods} cgroups, and each removes
     * them when it stops. Another checkout's suite waits here until the node it runs is gone.
     */
    static FileChannel machineLock() throws IOException {
        FileChannel channel = FileChannel.open(Path.of("/tmp/joulie-real-node.lock"),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        channel.lock();
        return channel;
    }

    /** What this machine lacks for a real node, each with how to get it; empty when nothing is missing. */
    public static List<String> missing() {
        List<String> missing = new ArrayList<>();
        if (!"root".equals(System.getProperty("user.name"))) {
            missing.add("root (the kubelet and containerd run as root)");
        }
        for (String tool : List.of("unshare", "containerd", "runc", "ctr", "gcc", "jq")) {
            if (onPath(tool).isEmpty()) {
                missing.add(tool + (tool.equals("unshare") ? " (util-linux)" : tool.equals("gcc") || tool.equals("jq") ? " (apt-get install " + tool + ")"
                        : " (apt-get install containerd runc)"));
            }
        }
        if (cniDir().isEmpty()) {
            missing.add("the CNI loopback plugin in " + CNI_DIRS + " (apt-get install containernetworking-plugins)");
        }
        if (!Files.isDirectory(Path.of("/sys/fs/cgroup"))) {
            missing.add("cgroups at /sys/fs/cgroup");
        }
        return missing;
    }

    static Optional<Path> onPath(String tool) {
        return Stream.of(System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":"))
                .flatMap(d -> Stream.of(Path.of(d, tool), Path.of("/usr/sbin", tool), Path.of("/sbin", tool)))
                .filter(Files::isExecutable).findFirst();
    }

    static Optional<Path> cniDir() {
        return CNI_DIRS.stream().filter(d -> Files.isExecutable(d.resolve("loopback"))).findFirst();
    }

    /**
     * Starts containerd and the kubelet for {@link #NAME} on this control plane, imports the sandbox image and these
     * OCI archives, and waits until the Node is Ready (its address set to 127.0.0.1 and the external cloud provider's
     * taint removed, as a cloud controller would).
     */
    public static RealNode start(ControlPlane controlPlane, FakeHost host, List<Path> images) throws IOException, InterruptedException {
        List<String> missing = missing();
        if (!missing.isEmpty()) {
            throw new IllegalStateException("the real node cannot start on this machine; missing: " + String.join("; ", missing)
                    + " (-De2e.realnode=skip skips the real-node scenarios explicitly)");
        }
        Path work = Files.createDirectories(controlPlane.workDir().resolve("real-node"));
        // A Unix socket's path holds at most 107 bytes (containerd refuses more than 104) and a checkout may lie deep:
        // containerd's sockets and the kubelet's root directory (device-plugins/, pod-resources/ and plugins_registry/
        // sockets) go to a short directory of their own, removed when the node stops. Everything else stays in work.
        Path sockets = Files.createTempDirectory(Path.of("/tmp"), "joulie-node-");
        Path socket = sockets.resolve("containerd.sock");
        Path cni = Files.createDirectories(work.resolve("cni"));
        Files.writeString(cni.resolve("10-loopback.conflist"), """
                {"cniVersion": "1.0.0", "name": "loopback", "plugins": [{"type": "loopback"}]}
                """);
        Path nvidiaRuntime = nvidiaRuntime(work);
        Path containerdConfig = write(work.resolve("containerd.toml"), """
                version = 2
                root = "%1$s/containerd/root"
                state = "%1$s/containerd/state"
                [grpc]
                  address = "%2$s"
                [ttrpc]
                  address = "%2$s.ttrpc"
                [debug]
                  address = ""
                [metrics]
                  address = ""
                [plugins."io.containerd.internal.v1.opt"]
                  path = "%1$s/containerd/opt"
                [plugins."io.containerd.grpc.v1.cri"]
                  sandbox_image = "%3$s"
                  restrict_oom_score_adj = true
                  stream_server_address = "127.0.0.1"
                  stream_server_port = "0"
                  [plugins."io.containerd.grpc.v1.cri".cni]
                    bin_dir = "%4$s"
                    conf_dir = "%5$s"
                  [plugins."io.containerd.grpc.v1.cri".containerd]
                    snapshotter = "overlayfs"
                    default_runtime_name = "runc"
                    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
                      runtime_type = "io.containerd.runc.v2"
                    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.%7$s]
                      runtime_type = "io.containerd.runc.v2"
                      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.%7$s.options]
                        BinaryName = "%6$s"
                """.formatted(work, socket, SANDBOX_IMAGE, cniDir().orElseThrow(), cni, nvidiaRuntime, NVIDIA_HANDLER));
        Path kubeletConfig = write(work.resolve("kubelet-config.yaml"), """
                apiVersion: kubelet.config.k8s.io/v1beta1
                kind: KubeletConfiguration
                address: 127.0.0.1
                port: %d
                readOnlyPort: 0
                healthzBindAddress: 127.0.0.1
                healthzPort: %d
                cgroupDriver: cgroupfs
                failCgroupV1: false
                failSwapOn: false
                containerRuntimeEndpoint: unix://%s
                enforceNodeAllocatable: []
                localStorageCapacityIsolation: false
                evictionHard: {}
                serializeImagePulls: false
                # the API server reaches the kubelet on loopback only (logs, exec); nothing else can
                authentication:
                  anonymous: {enabled: true}
                  webhook: {enabled: false}
                authorization: {mode: AlwaysAllow}
                """.formatted(JavaApp.freePort(), JavaApp.freePort(), socket));
        Path kubeconfig = controlPlane.kubeconfig("kubelet-" + NAME, controlPlane.nodeToken(NAME));
        Path script = work.resolve("node.sh");
        try (InputStream in = Objects.requireNonNull(RealNode.class.getResourceAsStream("/real-node/node.sh"), "real-node/node.sh")) {
            Files.write(script, in.readAllBytes());
        }
        Path kubelet = controlPlane.binary("kubelet");
        List<String> command = new ArrayList<>(List.of("unshare", "--mount", "--propagation", "private", "--pid", "--fork",
                "--mount-proc", "--kill-child=SIGTERM", "bash", script.toString(),
                "--config=" + kubeletConfig, "--kubeconfig=" + kubeconfig, "--root-dir=" + sockets.resolve("kubelet"),
                "--cert-dir=" + work.resolve("kubelet-pki"), "--hostname-override=" + NAME, "--cloud-provider=external",
                "--v=1"));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(work.resolve("node.log").toFile());
        pb.environment().putAll(Map.of("WORK", work.toString(), "FAKE_HOST", host.root().toString(), "KUBELET", kubelet.toString(),
                "CONTAINERD_CONFIG", containerdConfig.toString(), "CONTAINERD_SOCKET", socket.toString()));
        FileChannel lock = machineLock();
        RealNode node;
        try {
            node = new RealNode(controlPlane, work, host, sockets, socket, pb.start(), lock);
        } catch (IOException | RuntimeException e) {
            lock.close();
            throw e;
        }
        try {
            node.awaitSocket();
            node.importImage(PauseImage.build(work.resolve("pause"), SANDBOX_IMAGE));
            for (Path image : images) {
                node.importImage(image);
            }
            Files.writeString(work.resolve("images-imported"), "");
            node.awaitReady();
        } catch (IOException | InterruptedException | RuntimeException e) {
            node.close();
            throw e;
        }
        return node;
    }

    private void awaitSocket() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (!Files.exists(socket)) {
            if (!process.isAlive()) {
                throw new IOException("the real node exited with " + process.exitValue() + ": " + log());
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("containerd did not open " + socket + " in " + READY_TIMEOUT + ": " + log());
            }
            Thread.sleep(100);
        }
    }

    /** Imports an OCI (or Docker) image archive into containerd's Kubernetes namespace, under the name it carries. */
    public void importImage(Path archive) throws IOException, InterruptedException {
        ctr("images", "import", "--all-platforms", archive.toString());
    }

    /** {@code ctr} against this node's containerd, in the {@code k8s.io} namespace; its output. */
    public String ctr(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("ctr", "--address", socket.toString(), "--namespace", "k8s.io"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + " failed: " + out);
        }
        return out;
    }

    /** The taint a kubelet started with {@code --cloud-provider=external} registers its Node with. */
    private static final String UNINITIALIZED = "node.cloudprovider.kubernetes.io/uninitialized";

    private void awaitReady() throws IOException, InterruptedException {
        try (KubernetesClient admin = controlPlane.adminClient()) {
            long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
            boolean addressed = false;
            while (true) {
                if (!process.isAlive()) {
                    throw new IOException("the real node exited with " + process.exitValue() + ": " + log());
                }
                Node node = admin.nodes().withName(NAME).get();
                // What a cloud controller does for a kubelet started with --cloud-provider=external: its addresses, then
                // the taint that kept Pods off it removed. The kubelet refuses a loopback --node-ip.
                if (node != null && !addressed) {
                    admin.nodes().withName(NAME).subresource("status").patch(PatchContext.of(
                            PatchType.STRATEGIC_MERGE), """
                            {"status": {"addresses": [{"type": "InternalIP", "address": "127.0.0.1"},
                                                      {"type": "Hostname", "address": "%s"}]}}""".formatted(NAME));
                    addressed = true;
                    continue;
                }
                // checked on every pass, not once: a CI run once found the taint back on a Ready node (the operator's Pod
                // then stayed Pending until the scenario timed out)
                boolean tainted = node != null && node.getSpec().getTaints() != null && node.getSpec().getTaints().stream()
                        .anyMatch(t -> t.getKey().equals(UNINITIALIZED));
                if (tainted) {
                    List<Taint> taints = node.getSpec().getTaints().stream().filter(t -> !t.getKey().equals(UNINITIALIZED)).toList();
                    try {
                        // with the resourceVersion just read: the kubelet writes the Node too, and a conflict is tried again
                        node.getSpec().setTaints(taints);
                        admin.nodes().resource(node).update();
                    } catch (KubernetesClientException e) {
                        if (e.getCode() != 409) {
                            throw e;
                        }
                    }
                } else if (node != null && ready(node)) {
                    System.out.printf("real node %s Ready %d ms after its start%n", NAME, Duration.between(started, Instant.now()).toMillis());
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException("node " + NAME + " not Ready in " + READY_TIMEOUT + ": " + log() + "\nkubelet: "
                            + JavaApp.tail(work.resolve("kubelet.log"), 15));
                }
                Thread.sleep(250);
            }
        }
    }

    static boolean ready(Node node) {
        return node.getStatus() != null && node.getStatus().getConditions() != null && node.getStatus().getConditions().stream()
                .anyMatch((NodeCondition c) -> c.getType().equals("Ready") && c.getStatus().equals("True"));
    }

    /**
     * The mutating admission policies that play this node's network plugin for the Pods of {@code namespace}: the host
     * network (the node's CNI gives a Pod nothing but its own loopback), the API server's loopback address in place of
     * the {@code kubernetes} Service's (no kube-proxy), and, for the operator's Pod, its own HTTP and management ports
     * (on one host network the agent's and the operator's defaults, 8080 and 9000, would collide) with its probes
     * following them and its declared ports removed (a host-network Pod's ports are host ports, which the scheduler
     * does not let two Pods share). Joulie's own objects stay as installed; these are the cluster's.
     */
    static String networkShim(String namespace, ControlPlane controlPlane) {
        return networkShim(controlPlane.mutatingPolicyApi(), namespace, URI.create(controlPlane.server()).getPort(),
                JavaApp.freePort(), JavaApp.freePort());
    }

    /** {@link #networkShim(String, ControlPlane)} with the API server's port and the operator's HTTP and management ports. */
    static String networkShim(String policyApi, String namespace, int apiPort, int http, int management) {
        return podPolicy(policyApi, "e2e-real-node-network", namespace, "", """
                - patchType: ApplyConfiguration
                  applyConfiguration:
                    expression: >-
                      Object{spec: Object.spec{hostNetwork: true,
                        containers: object.spec.containers.map(c, Object.spec.containers{name: c.name,
                          env: [Object.spec.containers.env{name: "KUBERNETES_SERVICE_HOST", value: "127.0.0.1"},
                                Object.spec.containers.env{name: "KUBERNETES_SERVICE_PORT", value: "%d"}]})}}
                """.formatted(apiPort)) + "---\n" + podPolicy(policyApi, "e2e-real-node-operator-ports", namespace, """
                - name: operator
                  expression: >-
                    has(object.metadata.labels) && 'app.kubernetes.io/name' in object.metadata.labels
                    && object.metadata.labels['app.kubernetes.io/name'] == 'joulie-operator'
                """, """
                - patchType: ApplyConfiguration
                  applyConfiguration:
                    expression: >-
                      Object{spec: Object.spec{
                        containers: object.spec.containers.map(c, Object.spec.containers{name: c.name,
                          env: [Object.spec.containers.env{name: "QUARKUS_HTTP_PORT", value: "%1$d"},
                                Object.spec.containers.env{name: "QUARKUS_MANAGEMENT_PORT", value: "%2$d"}],
                          startupProbe: Object.spec.containers.startupProbe{httpGet: Object.spec.containers.startupProbe.httpGet{port: %2$d}},
                          livenessProbe: Object.spec.containers.livenessProbe{httpGet: Object.spec.containers.livenessProbe.httpGet{port: %2$d}},
                          readinessProbe: Object.spec.containers.readinessProbe{httpGet: Object.spec.containers.readinessProbe.httpGet{port: %2$d}}})}}
                # a host-network Pod's declared ports are host ports, which the scheduler keeps apart: the agent's 9000 too
                - patchType: JSONPatch
                  jsonPatch:
                    expression: >-
                      has(object.spec.containers[0].ports) ? [JSONPatch{op: "remove", path: "/spec/containers/0/ports"}] : []
                """.formatted(http, management));
    }

    /**
     * A MutatingAdmissionPolicy on the creation of Pods, with these match conditions and mutations (YAML list items),
     * and its binding to one namespace.
     */
    private static String podPolicy(String api, String name, String namespace, String matchConditions, String mutations) {
        return """
                apiVersion: %5$s
                kind: MutatingAdmissionPolicy
                metadata: {name: %1$s}
                spec:
                  matchConstraints:
                    resourceRules:
                    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
                  failurePolicy: Fail
                  reinvocationPolicy: Never
                %3$s  mutations:
                %4$s---
                apiVersion: %5$s
                kind: MutatingAdmissionPolicyBinding
                metadata: {name: %1$s}
                spec:
                  policyName: %1$s
                  matchResources:
                    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: %2$s}}
                """.formatted(name, namespace,
                matchConditions.isEmpty() ? "" : "  matchConditions:\n" + matchConditions.indent(2),
                mutations.indent(2), api);
    }

    /**
     * Waits until the API server applies {@link #networkShim} in {@code namespace} (it loads admission policies a moment
     * after they are created): a server-side dry run of a Pod comes back on the host network.
     */
    static void awaitShim(RealCluster cluster, String namespace) {
        String pod = """
                apiVersion: v1
                kind: Pod
                metadata: {name: e2e-shim-probe, namespace: %s}
                spec: {containers: [{name: probe, image: %s}]}
                """.formatted(namespace, SANDBOX_IMAGE);
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> cluster.kubectl(pod, "create", "--dry-run=server", "-f", "-", "-o", "jsonpath={.spec.hostNetwork}")
                        .output().strip().equals("true"));
    }

    /**
     * The fake hardware this node's Pods see at {@code /sys/class/powercap} and {@code /sys/devices/virtual/powercap},
     * cpufreq, {@code /dev/cpu} (when the fake has devices there) and {@code /proc/cpuinfo}.
     */
    public FakeHost host() {
        return host;
    }

    /** Where the agent's hostPath {@code /var/lib/joulie} is, seen from outside the node's namespace. */
    public Path agentStateDir() {
        return work.resolve("var-lib-joulie");
    }

    public Path workDir() {
        return work;
    }

    /**
     * The host PID of a running container of this Pod: the process whose cgroup path names the Pod's UID, and that is no
     * sandbox ({@code pause}). Empty while none runs.
     */
    public Optional<Long> containerPid(Pod pod) {
        String uid = pod.getMetadata().getUid();
        String cgroupName = uid.replace('-', '_');
        return firstProcess(p -> {
            String cgroup = Files.readString(p.resolve("cgroup"));
            String comm = Files.readString(p.resolve("comm")).strip();
            return (cgroup.contains("pod" + uid) || cgroup.contains("pod" + cgroupName)) && !comm.equals("pause");
        });
    }

    String log() {
        return JavaApp.tail(work.resolve("node.log"), 15) + "\ncontainerd: " + JavaApp.tail(work.resolve("containerd.log"), 10);
    }

    /**
     * Deletes every Pod bound to this node while its kubelet runs (the kubelet removes their containers and cgroups),
     * then stops the kubelet and containerd (SIGTERM to the namespace's first process), and removes the kubelet's empty
     * cgroups on the machine.
     */
    @Override
    public void close() {
        keepPodLogs();
        try (KubernetesClient admin = controlPlane.adminClient()) {
            if (process.isAlive()) {
                // a NoExecute taint no Pod tolerates: their controllers (a DaemonSet's too) put no new Pod on the node
                taint(admin, new Taint("NoExecute", "joulie.io/e2e-node-stopping", null, "true"));
                List<Pod> pods = admin.pods().inAnyNamespace().withField("spec.nodeName", NAME).list().getItems();
                for (Pod p : pods) {
                    admin.pods().inNamespace(p.getMetadata().getNamespace()).withName(p.getMetadata().getName())
                            .withGracePeriod(5).delete();
                }
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (System.nanoTime() < deadline && !admin.pods().inAnyNamespace().withField("spec.nodeName", NAME).list()
                        .getItems().isEmpty()) {
                    Thread.sleep(250);
                }
            }
        } catch (RuntimeException e) {
            System.err.println("real node: its Pods could not all be deleted before it stopped: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            // unshare ends as soon as it has signalled its child; the namespace ends when the child does
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (Files.exists(socket) && containerdRuns() && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        removeKubeletCgroups();
        removeSockets();
        try {
            lock.close();
        } catch (IOException e) {
            System.err.println("real node: the machine lock was not released: " + e);
        }
    }

    /**
     * Removes the short directory of sockets and the kubelet's root once the node's namespace has ended (its mounts,
     * the Pods' volumes among them, went with it); symbolic links are removed, never followed.
     */
    private void removeSockets() {
        if (process.isAlive() || containerdRuns()) {
            System.err.println("real node: " + sockets + " is kept: the node still runs");
            return;
        }
        try (Stream<Path> entries = Files.walk(sockets)) {
            for (Path p : entries.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | UncheckedIOException e) {
            System.err.println("real node: " + sockets + " was not all removed: " + e);
        }
    }

    /** The node's container logs so far, copied to {@code pod-logs/}: the kubelet deletes a Pod's logs with the Pod. */
    private void keepPodLogs() {
        Path from = work.resolve("var-log/pods");
        Path to = work.resolve("pod-logs");
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                Files.createDirectories(target.getParent());
                Files.copy(f, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException | UncheckedIOException e) {
            System.err.println("real node: its Pods' logs were not all kept: " + e);
        }
    }

    /** Adds a taint to the Node, reading it again after a conflict (the kubelet writes the Node too). */
    static void taint(KubernetesClient admin, Taint taint) {
        for (int attempt = 0; ; attempt++) {
            Node node = admin.nodes().withName(NAME).get();
            List<Taint> taints = new ArrayList<>(
                    node.getSpec().getTaints() == null ? List.of() : node.getSpec().getTaints());
            taints.add(taint);
            node.getSpec().setTaints(taints);
            try {
                admin.nodes().resource(node).update();
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt >= 10) {
                    throw e;
                }
            }
        }
    }

    private boolean containerdRuns() {
        return containerdPid().isPresent();
    }

    /**
     * The host PID of this node's containerd, a process of the node's mount namespace: its {@code mountinfo} is the
     * node's mount table, where the fake hardware and the shadows stand. Empty when it does not run.
     */
    public Optional<Long> containerdPid() {
        return firstProcess(p -> Files.readString(p.resolve("cmdline")).contains(work.resolve("containerd.toml").toString()));
    }

    /** A test on a process's {@code /proc/<pid>} directory, which may be gone by the time it is read. */
    interface ProcessTest {
        boolean test(Path proc) throws IOException;
    }

    /** The lowest PID of the machine's processes that pass the test (a process that ends meanwhile does not). */
    static Optional<Long> firstProcess(ProcessTest test) {
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            return procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).filter(p -> {
                try {
                    return test.test(p);
                } catch (IOException | UncheckedIOException gone) {
                    return false;
                }
            }).map(p -> Long.parseLong(p.getFileName().toString())).min(Comparator.naturalOrder());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The {@code kubepods} cgroups the kubelet made in every hierarchy, deepest first (only empty ones can go). */
    static void removeKubeletCgroups() {
        try (Stream<Path> hierarchies = Files.list(Path.of("/sys/fs/cgroup"))) {
            for (Path h : hierarchies.toList()) {
                Path kubepods = h.resolve("kubepods");
                if (!Files.isDirectory(kubepods)) {
                    continue;
                }
                try (Stream<Path> tree = Files.walk(kubepods)) {
                    for (Path dir : tree.filter(Files::isDirectory).sorted(Comparator.reverseOrder()).toList()) {
                        try {
                            Files.delete(dir);
                        } catch (IOException busy) {
                            System.err.println("real node: cgroup " + dir + " not removed: " + busy.getMessage());
                        }
                    }
                }
            }
        } catch (IOException | UncheckedIOException e) {
            System.err.println("real node: the kubelet's cgroups were not removed: " + e);
        }
    }

    /** The containerd runtime handler of {@link #nvidiaRuntime}, as a RuntimeClass names it. */
    public static final String NVIDIA_HANDLER = "nvidia";
    /** Where the stand-in NVIDIA runtime puts the driver's libraries in a container, and the container's library path. */
    public static final String NVIDIA_LIB_IN_CONTAINER = "/usr/local/nvidia/lib64";

    /**
     * A stand-in for the NVIDIA container runtime (a RuntimeClass handler; the GPU Operator installs the real one as
     * {@code nvidia}): runc, after it gave a container that asks for GPUs ({@code NVIDIA_VISIBLE_DEVICES} set and not
     * {@code void} or {@code none}) the "driver's" library directory ({@link #nvidiaDriverDir}) at
     * {@link #NVIDIA_LIB_IN_CONTAINER}, on its library path, as the real runtime's hooks inject the driver's
     * {@code libnvidia-ml.so.1}. It edits the OCI bundle's config.json with jq before {@code runc create}.
     */
    static Path nvidiaRuntime(Path work) throws IOException {
        Path driver = Files.createDirectories(work.resolve("nvidia-driver"));
        String jq = onPath("jq").orElseThrow().toString();
        String runc = onPath("runc").orElseThrow().toString();
        Path script = write(work.resolve("nvidia-runtime"), """
                #!/bin/bash
                # A stand-in for the NVIDIA container runtime: runc, with the driver's library directory in containers
                # that ask for GPUs (written by the e2e suite's RealNode).
                set -euo pipefail
                bundle="" previous=""
                for a in "$@"; do
                  [ "$previous" = "--bundle" ] && bundle="$a"
                  previous="$a"
                done
                if [ -n "$bundle" ] && [ -f "$bundle/config.json" ]; then
                  %1$s --arg driver '%2$s' --arg lib '%3$s' '
                    ((.process.env // []) | map(select(startswith("NVIDIA_VISIBLE_DEVICES=")) | ltrimstr("NVIDIA_VISIBLE_DEVICES="))
                      | first // "void") as $visible
                    | if ($visible == "void" or $visible == "none" or $visible == "") then .
                      else .mounts += [{"destination": $lib, "type": "bind", "source": $driver, "options": ["rbind", "rw"]}]
                        | .process.env += ["LD_LIBRARY_PATH=" + $lib]
                      end' "$bundle/config.json" > "$bundle/config.json.nvidia"
                  mv "$bundle/config.json.nvidia" "$bundle/config.json"
                fi
                exec %4$s "$@"
                """.formatted(jq, driver, NVIDIA_LIB_IN_CONTAINER, runc));
        Files.setPosixFilePermissions(script, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }

    /** The directory the stand-in NVIDIA runtime gives containers that ask for GPUs: put the (fake) NVML here. */
    public Path nvidiaDriverDir() {
        return work.resolve("nvidia-driver");
    }

    private static Path write(Path file, String content) throws IOException {
        Files.createDirectories(file.getParent());
        return Files.writeString(file, content);
    }
}
