package io.joulie.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The three install paths render the same objects: the kustomize base ({@code kubectl kustomize kubernetes/}) gives
 * exactly the objects of {@code kubernetes/}, the Helm chart with its default values ({@code helm template -n
 * joulie-system}) those and the sample {@code Joulie} resource but for the differences docs/install.md lists (no
 * Namespace, Helm's standard labels, {@code spec.monitoring} written out), and the overlay example changes only the
 * namespace and the images. The chart's values reach their objects, and its schema refuses keys it does not know.
 * helm comes from {@code hack/helm/build.sh} (built from the Go module proxy, cached); kubectl from the PATH. That each
 * installs a working Joulie is {@code InstallPathsIT}'s part.
 */
public class InstallPathsTest {
    static final Path REPO = Path.of(System.getProperty("repository.root"));
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /** kind/namespace/name → object, of every document of a YAML stream. */
    static Map<String, JsonNode> objects(String yaml) throws IOException {
        Map<String, JsonNode> out = new TreeMap<>();
        Iterator<JsonNode> docs = YAML.readerFor(JsonNode.class).readValues(yaml);
        while (docs.hasNext()) {
            JsonNode d = docs.next();
            if (d == null || d.isNull() || d.isMissingNode() || d.get("kind") == null) {
                continue;
            }
            String key = d.get("kind").asText() + "/" + d.at("/metadata/namespace").asText("") + "/" + d.at("/metadata/name").asText();
            assertThat(out.put(key, normalized(d))).as("one " + key).isNull();
        }
        return out;
    }

    /**
     * Numbers by value (a tool may write 1.0 as 1) and lists merged by name in name order, so that two renderings of
     * one object compare equal.
     */
    static JsonNode normalized(JsonNode n) {
        if (n.isNumber()) {
            return YAML.getNodeFactory().numberNode(n.decimalValue().stripTrailingZeros());
        }
        if (n.isObject()) {
            ObjectNode o = YAML.createObjectNode();
            n.properties().forEach(e -> o.set(e.getKey(), normalized(e.getValue())));
            return o;
        }
        if (n.isArray()) {
            List<JsonNode> items = new ArrayList<>();
            n.forEach(e -> items.add(normalized(e)));
            if (!items.isEmpty() && items.stream().allMatch(e -> e.isObject() && e.has("name"))) {
                // lists merged by name (env, ports, containers): a strategic merge patch may reorder them
                items.sort(java.util.Comparator.comparing(e -> e.get("name").asText()));
            }
            return YAML.createArrayNode().addAll(items);
        }
        return n;
    }

    /** The same objects; on a difference, the objects that differ (not every object of both). */
    static void assertSameObjects(Map<String, JsonNode> actual, Map<String, JsonNode> expected, String what) {
        assertThat(actual.keySet()).as(what + ": the objects").isEqualTo(expected.keySet());
        for (var e : expected.entrySet()) {
            assertThat(actual.get(e.getKey())).as(what + ": " + e.getKey()).isEqualTo(e.getValue());
        }
    }

    /** The objects of kubernetes/ (not the sample), as kubectl apply -f kubernetes/ reads them. */
    static Map<String, JsonNode> plain() throws IOException {
        StringBuilder all = new StringBuilder();
        try (Stream<Path> files = Files.list(REPO.resolve("kubernetes"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".yml")).sorted().toList()) {
                all.append(Files.readString(f)).append("\n---\n");
            }
        }
        return objects(all.toString());
    }

    static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(REPO.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(300, TimeUnit.SECONDS)).as(command + " finished").isTrue();
        assertThat(p.exitValue()).as(command + ":\n" + out).isZero();
        return out;
    }

    /** The helm binary: hack/helm/build.sh builds it from the Go module proxy on first use, then finds it cached. */
    public static Path helm() throws IOException, InterruptedException {
        return RepoFiles.built(REPO, "hack/helm/build.sh", ": helm is built from the Go module proxy");
    }

    @Test
    void theKustomizeBaseIsThePlainManifests() throws Exception {
        assertSameObjects(objects(run(List.of("kubectl", "kustomize", "kubernetes/"))), plain(), "kubectl kustomize kubernetes/");
    }

    @Test
    void theOverlayExampleMovesTheNamespaceAndTheImagesOnly() throws Exception {
        Map<String, JsonNode> overlay = new TreeMap<>();
        // kubectl's kustomize does not know ValidatingAdmissionPolicy(Binding) as cluster-scoped and gives them the
        // overlay's namespace; the API server drops a namespace on a cluster-scoped object (InstallPathsIT applies it)
        objects(run(List.of("kubectl", "kustomize", "examples/kustomize/"))).forEach((key, o) -> {
            if (key.startsWith("ValidatingAdmissionPolicy") && o.at("/metadata") instanceof ObjectNode meta) {
                meta.remove("namespace");
                key = key.replaceFirst("/[^/]*/", "//");
            }
            overlay.put(key, o);
        });
        Map<String, JsonNode> expected = new TreeMap<>();
        for (JsonNode o : plain().values()) {
            String text = YAML.writeValueAsString(o).replace("joulie-system", "power-management")
                    .replace("quay.io/joulie/", "registry.example.com/joulie/");
            JsonNode moved = YAML.readTree(text);
            expected.put(moved.get("kind").asText() + "/" + moved.at("/metadata/namespace").asText("") + "/"
                    + moved.at("/metadata/name").asText(), normalized(moved));
        }
        assertSameObjects(overlay, expected, "kubectl kustomize examples/kustomize/");
        assertThat(overlay).containsKey("Namespace//power-management");
    }

    /**
     * A copy of the example outside the repository names the base by its release tag (the URL in the example's comment,
     * decision 208): served here by a git repository holding kubernetes/ alone, tagged as the release, it renders what
     * the example in the repository does. So the base needs nothing outside kubernetes/, and the tag in the comment is
     * this release's.
     */
    @Test
    void anOutOfTreeCopyOfTheExampleTakesTheBaseByItsReleaseTag() throws Exception {
        String tag = "v" + io.joulie.api.BuildInfo.current().version();
        String example = Files.readString(REPO.resolve("examples/kustomize/kustomization.yaml"));
        String remote = "https://github.com/joulie-io/joulie//kubernetes?ref=" + tag;
        assertThat(example).as("the remote base in the example's comment").contains("# - " + remote + "\n");
        Path dir = Files.createTempDirectory("joulie-kustomize-remote");
        Path repo = dir.resolve("joulie");
        copyTree(REPO.resolve("kubernetes"), repo.resolve("kubernetes"));
        for (List<String> git : List.of(List.of("init", "-q"), List.of("add", "."),
                List.of("-c", "user.name=e2e", "-c", "user.email=e2e@joulie.invalid", "commit", "-q", "-m", "release"),
                List.of("tag", tag))) {
            List<String> command = new ArrayList<>(List.of("git", "-C", repo.toString()));
            command.addAll(git);
            run(command);
        }
        Path copy = Files.createDirectories(dir.resolve("overlay"));
        Files.writeString(copy.resolve("kustomization.yaml"), example.replace("- ../../kubernetes\n",
                "- " + remote.replace("https://github.com/joulie-io/joulie", "file://" + repo) + "\n"));
        assertSameObjects(objects(run(List.of("kubectl", "kustomize", copy.toString()))),
                objects(run(List.of("kubectl", "kustomize", "examples/kustomize/"))), "the copy with the base by its tag");
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(f, target);
                }
            }
        }
    }

    /** Quarkus' "managed-by: quarkus" is not on what kubectl, kustomize or OLM install (decision 208). */
    @Test
    void noInstalledObjectSaysQuarkusManagesIt() throws Exception {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> s = Stream.concat(Files.list(REPO.resolve("kubernetes")), Files.list(REPO.resolve("bundle/manifests")))) {
            s.filter(Files::isRegularFile).forEach(files::add);
        }
        assertThat(files).isNotEmpty().allSatisfy(f -> assertThat(Files.readString(f)).as(f.toString())
                .doesNotContainPattern("app.kubernetes.io/managed-by: \"?quarkus"));
    }

    /** The chart's version and appVersion, as Chart.yaml says. */
    static JsonNode chartYaml() throws IOException {
        return YAML.readTree(REPO.resolve("charts/joulie/Chart.yaml").toFile());
    }

    /**
     * A plain manifest's object as the chart renders it with its defaults in release {@code joulie}: the labels of the
     * object and of its Pod template carry Helm's standard set in place of the plain managed-by, version and part-of
     * (decision 187), app.kubernetes.io/name stays.
     */
    static JsonNode withHelmLabels(JsonNode object, JsonNode chart) {
        JsonNode copy = object.deepCopy();
        for (String at : List.of("/metadata", "/spec/template/metadata")) {
            if (copy.at(at) instanceof ObjectNode meta) {
                ObjectNode labels = meta.has("labels") ? (ObjectNode) meta.get("labels") : meta.putObject("labels");
                labels.remove(List.of("app.kubernetes.io/managed-by", "app.kubernetes.io/version", "app.kubernetes.io/part-of"));
                labels.put("helm.sh/chart", "joulie-" + chart.get("version").asText())
                        .put("app.kubernetes.io/instance", "joulie").put("app.kubernetes.io/managed-by", "Helm")
                        .put("app.kubernetes.io/part-of", "joulie").put("app.kubernetes.io/version", chart.get("appVersion").asText());
            }
        }
        return normalized(copy);
    }

    @Test
    void theChartWithItsDefaultsIsThePlainManifestsWithHelmsLabelsAndTheSample() throws Exception {
        Path helm = helm();
        // No --kube-version: the helm hack/helm/build.sh builds knows a Kubernetes the chart's kubeVersion accepts
        assertThat(run(List.of(helm.toString(), "lint", "charts/joulie", "--strict"))).contains("0 chart(s) failed");
        Map<String, JsonNode> rendered = objects(run(List.of(helm.toString(), "template", "joulie", "charts/joulie",
                "-n", "joulie-system", "--include-crds")));
        JsonNode chart = chartYaml();
        Map<String, JsonNode> expected = new TreeMap<>();
        plain().forEach((key, o) -> {
            if (key.startsWith("CustomResourceDefinition/")) {
                expected.put(key, o); // crds/ are not templates: as they are
            } else if (!key.startsWith("Namespace/")) { // the release's namespace is Helm's, not the chart's
                expected.put(key, withHelmLabels(o, chart));
            }
        });
        objects(Files.readString(REPO.resolve("kubernetes/sample/joulie.yml"))).forEach((key, o) -> {
            ObjectNode joulie = (ObjectNode) withHelmLabels(o, chart);
            // spec.monitoring from the monitoring values, every switch at its default
            ((ObjectNode) joulie.get("spec")).set("monitoring", normalized(YAML.createObjectNode().put("serviceMonitor", true)
                    .put("prometheusRules", true).put("grafanaDashboard", true)));
            expected.put(key, joulie);
        });
        assertSameObjects(rendered, expected, "helm template charts/joulie");
        assertThat(rendered.get("Deployment/joulie-system/joulie-operator").at("/spec/template/spec/containers/0/image").asText())
                .as("the image tag defaults to the chart's appVersion")
                .endsWith(":" + chart.get("appVersion").asText());
    }

    @Test
    void theChartRefusesAKubernetesOlderThanItsKubeVersion() throws Exception {
        Process p = new ProcessBuilder(helm().toString(), "template", "joulie", "charts/joulie", "--kube-version", "1.31.0")
                .directory(REPO.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isNotZero();
        assertThat(out).contains("chart requires kubeVersion: >=1.32.0-0 which is incompatible with Kubernetes v1.31.0");
    }

    @Test
    void theChartsValuesReachTheirObjects() throws Exception {
        Path values = Files.createDirectories(REPO.resolve("src-e2e/target")).resolve("chart-values-test.yaml");
        Files.writeString(values, """
                global:
                  imageRegistry: mirror.example.com:5000
                  imagePullSecrets: [{name: mirror-pull}]
                operator:
                  replicaCount: 2
                  image: {repository: power/op, tag: "1.2.3", pullPolicy: Always}
                  imagePullSecrets: [{name: operator-pull}]
                  env: {RESERVED_LABEL_KEY: example.com/reserved}
                  resources: {limits: {memory: 1Gi}, requests: {cpu: 0.5}}
                  volumes: [{name: prometheus, secret: {secretName: prometheus-credentials}}]
                  volumeMounts: [{name: prometheus, mountPath: /etc/prometheus-credentials, readOnly: true}]
                  nodeSelector: {node-role.kubernetes.io/control-plane: ""}
                  tolerations: [{key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}]
                  affinity:
                    nodeAffinity:
                      requiredDuringSchedulingIgnoredDuringExecution:
                        nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]}]
                  priorityClassName: system-cluster-critical
                  podSecurityContext: {runAsNonRoot: true, runAsUser: 1001, seccompProfile: {type: RuntimeDefault}}
                  securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: {drop: [ALL]}}
                  podAnnotations: {example.com/note: hello}
                  podLabels: {example.com/team: power}
                agent:
                  image: {digest: "sha256:%s"}
                monitoring:
                  serviceMonitor: {enabled: false}
                  labels: {release: prometheus}
                joulie:
                  spec:
                    agent: {imagePullSecrets: [{name: agent-pull}], reconcileInterval: 30s}
                    policy: {type: demand_sized_v1}
                """.formatted("ab".repeat(32)));
        Map<String, JsonNode> rendered = objects(run(List.of(helm().toString(), "template", "joulie", "charts/joulie",
                "-n", "power", "-f", values.toString())));
        JsonNode deployment = rendered.get("Deployment/power/joulie-operator");
        JsonNode pod = deployment.at("/spec/template");
        JsonNode container = pod.at("/spec/containers/0");
        assertThat(deployment.at("/spec/replicas").asInt()).isEqualTo(2);
        assertThat(container.get("image").asText()).isEqualTo("mirror.example.com:5000/power/op:1.2.3");
        assertThat(container.get("imagePullPolicy").asText()).isEqualTo("Always");
        assertThat(pod.at("/spec/imagePullSecrets").findValuesAsText("name")).containsExactlyInAnyOrder("mirror-pull", "operator-pull");
        assertThat(pod.at("/spec/nodeSelector").properties()).extracting(Map.Entry::getKey)
                .containsExactly("node-role.kubernetes.io/control-plane");
        assertThat(pod.at("/spec/tolerations/0/key").asText()).isEqualTo("node-role.kubernetes.io/control-plane");
        assertThat(pod.at("/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0"
                + "/matchExpressions/0/values/0").asText()).isEqualTo("amd64");
        assertThat(pod.at("/spec/priorityClassName").asText()).isEqualTo("system-cluster-critical");
        assertThat(pod.at("/spec/securityContext/runAsUser").asInt()).isEqualTo(1001);
        assertThat(container.at("/securityContext/readOnlyRootFilesystem").asBoolean()).isTrue();
        assertThat(pod.at("/metadata/annotations/example.com~1note").asText()).isEqualTo("hello");
        assertThat(pod.at("/metadata/annotations/prometheus.io~1scrape").asText()).as("the plain manifests' stay").isEqualTo("true");
        assertThat(pod.at("/metadata/labels/example.com~1team").asText()).isEqualTo("power");
        assertThat(pod.at("/metadata/labels/app.kubernetes.io~1name").asText()).isEqualTo("joulie-operator");
        Map<String, String> env = new TreeMap<>();
        container.get("env").forEach(e -> env.put(e.get("name").asText(), e.path("value").asText(null)));
        assertThat(env).containsEntry("RELATED_IMAGE_AGENT", "mirror.example.com:5000/joulie/joulie-agent@sha256:" + "ab".repeat(32))
                .containsEntry("RESERVED_LABEL_KEY", "example.com/reserved");
        assertThat(container.at("/resources/limits/memory").asText()).isEqualTo("1Gi");
        assertThat(container.at("/resources/requests/cpu").decimalValue()).as("a quantity as a number").isEqualByComparingTo("0.5");
        assertThat(container.at("/volumeMounts/0/mountPath").asText()).isEqualTo("/etc/prometheus-credentials");
        assertThat(pod.at("/spec/volumes/0/secret/secretName").asText()).isEqualTo("prometheus-credentials");

        JsonNode spec = rendered.get("Joulie//joulie").get("spec");
        assertThat(spec.at("/agent/imagePullSecrets").findValuesAsText("name")).as("global's and the spec's")
                .containsExactlyInAnyOrder("mirror-pull", "agent-pull");
        assertThat(spec.at("/agent/reconcileInterval").asText()).isEqualTo("30s");
        assertThat(spec.at("/policy/type").asText()).isEqualTo("demand_sized_v1");
        assertThat(spec.at("/monitoring/serviceMonitor").asBoolean()).isFalse();
        assertThat(spec.at("/monitoring/prometheusRules").asBoolean()).isTrue();
        assertThat(spec.at("/monitoring/labels/release").asText()).isEqualTo("prometheus");

        List<String> subjects = new ArrayList<>();
        rendered.values().forEach(o -> o.path("subjects").forEach(s -> subjects.add(s.get("namespace").asText())));
        assertThat(subjects).isNotEmpty().containsOnly("power");
        assertThat(rendered.keySet()).filteredOn(k -> !k.startsWith("Cluster") && !k.startsWith("ValidatingAdmissionPolicy")
                        && !k.startsWith("Joulie/"))
                .isNotEmpty().allMatch(k -> k.split("/")[1].equals("power"));
        assertThat(rendered.get("ValidatingAdmissionPolicy//joulie-operator-scope").at("/spec/matchConditions/0/expression").asText())
                .contains("system:serviceaccount:power:joulie-operator");
        assertThat(rendered.keySet()).noneMatch(k -> k.startsWith("Namespace/"));
        assertThat(rendered.values()).allSatisfy(o -> assertThat(o.at("/metadata/labels/app.kubernetes.io~1instance").asText())
                .as(o.at("/kind").asText() + " " + o.at("/metadata/name").asText()).isEqualTo("joulie"));

        Map<String, JsonNode> operatorOnly = objects(run(List.of(helm().toString(), "template", "joulie", "charts/joulie",
                "--set", "joulie.create=false")));
        assertThat(operatorOnly.keySet()).noneMatch(k -> k.startsWith("Joulie/")).contains("Deployment/default/joulie-operator");
    }

    record Ran(int exit, String output) {
    }

    /** helm template with these extra arguments: its exit code and output. */
    static Ran template(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(helm().toString(), "template", "joulie", "charts/joulie"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(REPO.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(300, TimeUnit.SECONDS)).as(command + " finished").isTrue();
        return new Ran(p.exitValue(), out);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            operator.nodeSelectr.disk=ssd          | at '/operator': additional properties 'nodeSelectr' not allowed
            image.tag=0.2.0                        | additional properties 'image' not allowed
            operator.image.tags=0.2.0              | at '/operator/image': additional properties 'tags' not allowed
            namespace.create=false                 | additional properties 'namespace' not allowed
            operator.tolerations[0].keys=a         | at '/operator/tolerations/0': additional properties 'keys' not allowed
            joulie.spec.policy.typ=demand_sized_v1 | at '/joulie/spec/policy': additional properties 'typ' not allowed
            joulie.spec.policy.type=demand_sized   | at '/joulie/spec/policy/type'
            joulie.spec.monitoring.labels.a=b      | at '/joulie/spec': additional properties 'monitoring' not allowed
            monitoring.serviceMonitor=false        | at '/monitoring/serviceMonitor'
            operator.image.digest=latest           | at '/operator/image/digest'
            """)
    void aKeyTheChartDoesNotKnowFailsTheRender(String set, String message) throws Exception {
        Ran r = template("--set", set);
        assertThat(r.exit()).as("helm template --set " + set + ":\n" + r.output()).isNotZero();
        assertThat(r.output()).contains("values don't meet the specifications of the schema(s)").contains(message);
    }
}
