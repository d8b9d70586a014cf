package io.joulie.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.junit.jupiter.api.Test;

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
 * The three install paths render the same objects: the kustomize base ({@code kubectl kustomize kubernetes/}) and
 * the Helm chart with its default values ({@code helm template}) give exactly the objects of {@code kubernetes/}
 * (the chart adds the sample {@code Joulie} resource), and the overlay example changes only the namespace and the
 * images. helm comes from {@code hack/helm/build.sh} (built from the Go module proxy, cached); kubectl from the PATH.
 * That each installs a working Joulie is {@code InstallPathsIT}'s part.
 */
public class InstallPathsTest {
    static final Path REPO = Path.of(System.getProperty("repository.root"));
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    static final String KUBE_VERSION = "1.35.4";

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

    @Test
    void theChartWithItsDefaultsIsThePlainManifestsAndTheSample() throws Exception {
        Path helm = helm();
        assertThat(run(List.of(helm.toString(), "lint", "charts/joulie", "--strict", "--kube-version", KUBE_VERSION)))
                .contains("0 chart(s) failed");
        Map<String, JsonNode> rendered = objects(run(List.of(helm.toString(), "template", "joulie", "charts/joulie",
                "--include-crds", "--kube-version", KUBE_VERSION)));
        Map<String, JsonNode> expected = plain();
        expected.putAll(objects(Files.readString(REPO.resolve("kubernetes/sample/joulie.yml"))));
        assertSameObjects(rendered, expected, "helm template charts/joulie");
    }

    @Test
    void theChartsValuesReachTheirObjects() throws Exception {
        Map<String, JsonNode> rendered = objects(run(List.of(helm().toString(), "template", "joulie", "charts/joulie",
                "--kube-version", KUBE_VERSION, "--set", "namespace.name=power", "--set", "namespace.create=false",
                "--set", "operator.image=registry.example.com/op:1", "--set", "agent.image=registry.example.com/agent:1",
                "--set", "operator.env.RESERVED_LABEL_KEY=example.com/reserved", "--set", "operator.resources.limits.memory=1Gi",
                "--set", "joulie.create=false",
                "--set-json", "operator.volumes=[{\"name\":\"prometheus\",\"secret\":{\"secretName\":\"prometheus-credentials\"}}]",
                "--set-json", "operator.volumeMounts=[{\"name\":\"prometheus\",\"mountPath\":\"/etc/prometheus-credentials\",\"readOnly\":true}]")));
        assertThat(rendered.keySet()).noneMatch(k -> k.startsWith("Namespace/") || k.startsWith("Joulie/"));
        JsonNode deployment = rendered.get("Deployment/power/joulie-operator");
        JsonNode container = deployment.at("/spec/template/spec/containers/0");
        assertThat(container.get("image").asText()).isEqualTo("registry.example.com/op:1");
        Map<String, String> env = new TreeMap<>();
        container.get("env").forEach(e -> env.put(e.get("name").asText(), e.path("value").asText(null)));
        assertThat(env).containsEntry("RELATED_IMAGE_AGENT", "registry.example.com/agent:1")
                .containsEntry("RESERVED_LABEL_KEY", "example.com/reserved");
        assertThat(container.at("/resources/limits/memory").asText()).isEqualTo("1Gi");
        assertThat(container.at("/volumeMounts/0/mountPath").asText()).isEqualTo("/etc/prometheus-credentials");
        assertThat(deployment.at("/spec/template/spec/volumes/0/secret/secretName").asText()).isEqualTo("prometheus-credentials");
        List<String> subjects = new ArrayList<>();
        rendered.values().forEach(o -> o.path("subjects").forEach(s -> subjects.add(s.get("namespace").asText())));
        assertThat(subjects).isNotEmpty().containsOnly("power");
        assertThat(rendered.keySet()).filteredOn(k -> !k.startsWith("Cluster") && !k.startsWith("CustomResourceDefinition")
                        && !k.startsWith("ValidatingAdmissionPolicy"))
                .allMatch(k -> k.split("/")[1].equals("power"));
        assertThat(((ObjectNode) deployment).has("status")).isFalse();
    }
}
