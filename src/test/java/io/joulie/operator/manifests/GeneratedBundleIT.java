package io.joulie.operator.manifests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.fabric8.kubernetes.api.model.HasMetadata;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OLM bundle under {@code bundle/}: what the Operator SDK's bundle generator wrote to
 * {@code src/target/bundle/joulie/}, completed with what 7.2.3 does not write itself: the two CRDs no
 * controller reconciles (NodePowerProfile, TelemetryProfile) as owned CRDs, every CRD exactly as in
 * {@code kubernetes/} (printer columns in the model's order), the {@code Joulie} resource's spec and status
 * descriptors, {@code relatedImages} (the agent image the operator deploys), {@code containerImage} and
 * {@code alm-examples} (the sample {@code Joulie}). Drift-checked like {@code kubernetes/};
 * {@code -Dmanifests.update=true} rewrites it. {@code hack/olm-validate/run.sh} then checks it with the
 * operator-framework's validators.
 */
class GeneratedBundleIT {
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER).enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            // a string such as the annotation prometheus.io/port: "9000" must stay a string for Go's decoders
            .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS));
    static final ObjectMapper JSON = new ObjectMapper();
    static final String CSV = "manifests/joulie.clusterserviceversion.yaml";
    static final String NAME_PREFIX = "joulie.v";

    private static final String UI = "urn:alm:descriptor:com.tectonic.ui:";
    /** The console's form for the {@code Joulie} resource: path under spec, display name, x-descriptors. */
    static final List<String[]> SPEC_DESCRIPTORS = List.of(
            new String[] {"agent.image", "Agent image", UI + "text"},
            new String[] {"agent.imagePullPolicy", "Agent image pull policy", UI + "imagePullPolicy"},
            new String[] {"agent.nodeSelector", "Agent node selector", UI + "advanced"},
            new String[] {"agent.tolerations", "Agent tolerations", UI + "advanced"},
            new String[] {"agent.resources", "Agent resources", UI + "resourceRequirements"},
            new String[] {"agent.restoreOnExit", "Restore caps when the agent exits", UI + "booleanSwitch"},
            new String[] {"agent.reconcileInterval", "Agent reconcile interval", UI + "text"},
            // every value the CRD's pattern allows, in its order (theConsoleOffersEveryPolicy)
            new String[] {"policy.type", "Policy", UI + "select:static_partition", UI + "select:queue_aware_v1",
                    UI + "select:demand_sized_v1", UI + "select:rule_swap_v1"},
            new String[] {"policy.performanceCapPercent", "Performance CPU cap (% of the maximum)", UI + "number"},
            new String[] {"policy.performanceCapWatts", "Performance CPU cap (W)", UI + "number"},
            new String[] {"policy.ecoCapPercent", "Eco CPU cap (% of the maximum)", UI + "number"},
            new String[] {"policy.ecoCapWatts", "Eco CPU cap (W)", UI + "number"},
            new String[] {"policy.gpuPerformanceCapPercent", "Performance GPU cap (% of the maximum)", UI + "number"},
            new String[] {"policy.gpuEcoCapPercent", "Eco GPU cap (% of the maximum)", UI + "number"},
            new String[] {"policy.downgradeEscalation", "Downgrade escalation", UI + "select:hold", UI + "select:force",
                    UI + "select:evict"},
            new String[] {"monitoring.serviceMonitor", "ServiceMonitors", UI + "booleanSwitch"},
            new String[] {"monitoring.prometheusRules", "PrometheusRule (alerts)", UI + "booleanSwitch"},
            new String[] {"monitoring.grafanaDashboard", "Grafana dashboard", UI + "booleanSwitch"});
    /** What the console shows of the {@code Joulie} status: path under status, display name, x-descriptors. */
    static final List<String[]> STATUS_DESCRIPTORS = List.of(
            new String[] {"conditions", "Conditions", "urn:alm:descriptor:io.kubernetes.conditions"},
            new String[] {"agents.desired", "Agents desired", "urn:alm:descriptor:text"},
            new String[] {"agents.ready", "Agents ready", "urn:alm:descriptor:text"},
            new String[] {"nodes.managed", "Managed nodes", "urn:alm:descriptor:text"},
            new String[] {"nodes.activePerformance", "Nodes in performance", "urn:alm:descriptor:text"},
            new String[] {"nodes.activeEco", "Nodes in eco", "urn:alm:descriptor:text"},
            new String[] {"nodes.drainingPerformance", "Nodes draining", "urn:alm:descriptor:text"},
            new String[] {"effectivePolicy.type", "Policy in force", "urn:alm:descriptor:text"});

    /** A CRD as the build writes it into {@code kubernetes/}, without its header comment. */
    private static String plainCrd(String name) {
        return Manifests.generate(Manifests.repository().resolve("src/target/kubernetes")).get("10-crd-" + name + ".yml")
                .lines().filter(l -> !l.startsWith("#")).reduce("", (a, b) -> a + b + "\n");
    }

    private static void descriptors(ObjectNode owned, String field, List<String[]> table) {
        ArrayNode list = owned.putArray(field);
        for (String[] d : table) {
            ObjectNode o = list.addObject().put("path", d[0]).put("displayName", d[1]);
            ArrayNode x = o.putArray("x-descriptors");
            for (int i = 2; i < d.length; i++) {
                x.add(d[i]);
            }
        }
    }

    /** The Namespace of {@code kubernetes/00-namespace.yml}: apiVersion, kind, name and labels. */
    static ObjectNode namespaceTemplate() throws IOException {
        JsonNode ns = YAML.readTree(Files.readString(Manifests.repository().resolve("kubernetes/00-namespace.yml")));
        ObjectNode template = JSON.createObjectNode().put("apiVersion", "v1").put("kind", "Namespace");
        template.putObject("metadata").put("name", ns.at("/metadata/name").asText())
                .set("labels", ns.at("/metadata/labels").deepCopy());
        return template;
    }

    static Map<String, String> generate() throws IOException {
        Path repo = Manifests.repository();
        Path out = repo.resolve("src/target/bundle/joulie");
        Map<String, String> files = new LinkedHashMap<>();
        try (Stream<Path> s = Files.walk(out)) {
            for (Path p : s.filter(Files::isRegularFile).sorted().toList()) {
                files.put(out.relativize(p).toString(), Files.readString(p));
            }
        }
        ObjectNode csv = (ObjectNode) YAML.readTree(files.get(CSV));
        ArrayNode owned = (ArrayNode) csv.at("/spec/customresourcedefinitions/owned");
        // Every CRD as kubernetes/ has it (the generator's Joulie CRD sorts its printer columns by JSON path).
        for (Class<? extends HasMetadata> type : Manifests.CUSTOM_RESOURCES) {
            String crd = HasMetadata.getFullResourceName(type);
            files.put("manifests/" + crd + "-v1.crd.yml", plainCrd(crd));
        }
        for (var crd : List.of(
                new String[] {"nodepowerprofiles.joulie.io", "NodePowerProfile", "Node power profile",
                        "Desired power profile and cap of one node, written by the operator, applied by its agent."},
                new String[] {"telemetryprofiles.joulie.io", "TelemetryProfile", "Telemetry profile",
                        "How an agent reads its inputs and applies its controls; its status reports what was applied."},
                new String[] {"nodehardwares.joulie.io", "NodeHardware", "Node hardware",
                        "What a node's agent found: CPU packages and their power range, GPU boards and their limits, which controls work."})) {
            owned.addObject().put("kind", crd[1]).put("name", crd[0]).put("version", "v1alpha1")
                    .put("displayName", crd[2]).put("description", crd[3]);
        }
        for (JsonNode o : owned) {
            if (o.get("kind").asText().equals("Joulie")) {
                ((ObjectNode) o).put("displayName", "Joulie installation")
                        .put("description", "The installation: the node agent DaemonSet and its supporting objects.");
                descriptors((ObjectNode) o, "specDescriptors", SPEC_DESCRIPTORS);
                descriptors((ObjectNode) o, "statusDescriptors", STATUS_DESCRIPTORS);
            }
        }
        String agentImage = null;
        String operatorImage = null;
        for (JsonNode d : csv.at("/spec/install/spec/deployments")) {
            // OLM manages this Deployment, not Quarkus (decision 208)
            if (d.at("/spec/template/metadata/labels") instanceof ObjectNode labels) {
                labels.remove(Manifests.MANAGED_BY);
            }
            ((ObjectNode) d.at("/spec/template/spec")).set("securityContext", JSON.readTree(Manifests.OPERATOR_POD_SECURITY));
            JsonNode c = d.at("/spec/template/spec/containers/0");
            ((ObjectNode) c).set("securityContext", JSON.readTree(Manifests.OPERATOR_CONTAINER_SECURITY));
            // the generator emits container ports and env (one variable per controller) in varying order
            for (String list : List.of("ports", "env")) {
                List<JsonNode> items = new java.util.ArrayList<>();
                c.get(list).forEach(items::add);
                items.sort(java.util.Comparator.comparing(pt -> pt.get("name").asText()));
                ((ObjectNode) c).putArray(list).addAll(items);
            }
            operatorImage = c.get("image").asText();
            for (JsonNode env : c.get("env")) {
                if (env.get("name").asText().equals("RELATED_IMAGE_AGENT")) {
                    agentImage = env.get("value").asText();
                }
            }
        }
        ArrayNode related = ((ObjectNode) csv.get("spec")).putArray("relatedImages");
        related.addObject().put("name", "joulie-operator").put("image", operatorImage);
        related.addObject().put("name", "joulie-agent").put("image", agentImage);
        JsonNode sample = YAML.readTree(Files.readString(repo.resolve("kubernetes/" + Manifests.SAMPLE)));
        ((ObjectNode) csv.get("metadata").get("annotations")).put("alm-examples",
                JSON.writerWithDefaultPrettyPrinter().writeValueAsString(JSON.createArrayNode().add(sample)));
        // The CSV's name carries the release version (the generator's would be a second place for it).
        ((ObjectNode) csv.get("metadata")).put("name", NAME_PREFIX + csv.at("/spec/version").asText());
        ObjectNode annotations = (ObjectNode) csv.get("metadata").get("annotations");
        annotations.put("containerImage", operatorImage);
        // The upgrade edge (decision 196): this version replaces every earlier one directly.
        annotations.put("olm.skipRange", "<" + csv.at("/spec/version").asText());
        // The namespace the console offers to create: kubernetes/00-namespace.yml's, with its Pod Security labels.
        annotations.put("operatorframework.io/suggested-namespace-template",
                JSON.writerWithDefaultPrettyPrinter().writeValueAsString(namespaceTemplate()));
        files.put(CSV, YAML.writeValueAsString(csv));
        return files;
    }

    @Test
    void committedBundleMatchesTheBuild() throws IOException {
        Path committed = Manifests.repository().resolve("bundle");
        Map<String, String> generated = generate();
        if (Boolean.getBoolean("manifests.update")) {
            if (Files.isDirectory(committed)) {
                try (Stream<Path> s = Files.walk(committed)) {
                    for (Path p : s.sorted((a, b) -> b.compareTo(a)).toList()) {
                        Files.delete(p);
                    }
                }
            }
            for (var e : generated.entrySet()) {
                Path p = committed.resolve(e.getKey());
                Files.createDirectories(p.getParent());
                Files.writeString(p, e.getValue());
            }
        }
        Set<String> files = new TreeSet<>();
        try (Stream<Path> s = Files.walk(committed)) {
            s.filter(Files::isRegularFile).forEach(p -> files.add(committed.relativize(p).toString()));
        }
        assertThat(files).isEqualTo(new TreeSet<>(generated.keySet()));
        for (var e : generated.entrySet()) {
            assertThat(Files.readString(committed.resolve(e.getKey())))
                    .as("bundle/%s drifted from the build; regenerate with ./mvnw verify -Dmanifests.update=true", e.getKey())
                    .isEqualTo(e.getValue());
        }
    }

    @Test
    void theCsvIsCompleteAndGrantsEveryRuleTheOperatorAndAgentNeed() throws IOException {
        Map<String, String> bundle = generate();
        JsonNode csv = YAML.readTree(bundle.get(CSV));

        assertThat(csv.at("/spec/customresourcedefinitions/owned")).extracting(o -> o.get("name").asText())
                .containsExactlyInAnyOrder("joulies.joulie.io", "nodepowerprofiles.joulie.io", "telemetryprofiles.joulie.io",
                        "nodehardwares.joulie.io");
        assertThat(csv.at("/spec/customresourcedefinitions/owned")).allSatisfy(o -> {
            assertThat(o.get("displayName").asText()).isNotBlank();
            assertThat(o.get("description").asText()).isNotBlank();
        });
        assertThat(bundle).containsKeys("manifests/nodepowerprofiles.joulie.io-v1.crd.yml", "manifests/nodehardwares.joulie.io-v1.crd.yml",
                "manifests/telemetryprofiles.joulie.io-v1.crd.yml", "manifests/joulies.joulie.io-v1.crd.yml",
                "metadata/annotations.yaml", "bundle.Dockerfile");
        assertThat(csv.at("/spec/relatedImages")).extracting(i -> i.get("name").asText() + "=" + i.get("image").asText())
                .containsExactly("joulie-operator=quay.io/joulie/joulie-operator:0.1.0", "joulie-agent=quay.io/joulie/joulie-agent:0.1.0");
        JsonNode examples = JSON.readTree(csv.at("/metadata/annotations/alm-examples").asText());
        assertThat(examples).singleElement().satisfies(e -> {
            assertThat(e.get("kind").asText()).isEqualTo("Joulie");
            assertThat(CrdSchemaTest.schema("joulies.joulie.io").validate(e)).isEmpty();
        });
        // Cluster-wide only (docs/decisions.md): AllNamespaces is the one supported install mode.
        assertThat(csv.at("/spec/installModes")).filteredOn(m -> m.get("supported").asBoolean())
                .extracting(m -> m.get("type").asText()).containsExactly("AllNamespaces");
        // Strings stay strings: Go's typed decoders (OLM, opm, kubectl) refuse a number where a string belongs.
        assertThat(bundle.get(CSV)).contains("prometheus.io/port: \"9000\"");
        assertThat(java.time.Instant.parse(csv.at("/metadata/annotations/createdAt").asText())).isNotNull();
        assertThat(JSON.readTree(csv.at("/metadata/annotations/operators.operatorframework.io~1internal-objects").asText()))
                .extracting(JsonNode::asText).containsExactlyInAnyOrder("nodepowerprofiles.joulie.io", "telemetryprofiles.joulie.io",
                        "nodehardwares.joulie.io");
        for (String crd : List.of("joulies.joulie.io", "nodepowerprofiles.joulie.io", "telemetryprofiles.joulie.io",
                "nodehardwares.joulie.io")) {
            assertThat(bundle.get("manifests/" + crd + "-v1.crd.yml")).as(crd + " as in kubernetes/").isEqualTo(plainCrd(crd));
        }
        assertThat(csv.at("/metadata/name").asText()).isEqualTo("joulie.v" + csv.at("/spec/version").asText());
        // The upgrade edge (decision 196): no replaces before a first release, a skipRange up to this version.
        assertThat(csv.at("/metadata/annotations/olm.skipRange").asText()).isEqualTo("<" + csv.at("/spec/version").asText());
        assertThat(csv.at("/spec/replaces").isMissingNode()).as("spec.replaces: nothing was released before 0.1.0").isTrue();
        // The namespace the console creates admits the agent (Pod Security: privileged) and is the suggested one.
        JsonNode namespace = JSON.readTree(csv.at("/metadata/annotations/operatorframework.io~1suggested-namespace-template").asText());
        assertThat(namespace.at("/kind").asText()).isEqualTo("Namespace");
        assertThat(namespace.at("/metadata/name").asText())
                .isEqualTo(csv.at("/metadata/annotations/operatorframework.io~1suggested-namespace").asText());
        assertThat(namespace.at("/metadata/labels/pod-security.kubernetes.io~1enforce").asText()).isEqualTo("privileged");
        // Air-gapped installs (decision 207): the images the operator runs and deploys are the relatedImages a mirror
        // copies (by digest once hack/release/pin-bundle.sh pinned them), so the CSV says disconnected; the other
        // infrastructure features are said, each "true" or "false".
        assertThat(csv.at("/metadata/annotations/features.operators.openshift.io~1disconnected").asText()).isEqualTo("true");
        List<String> features = new java.util.ArrayList<>();
        csv.at("/metadata/annotations").fieldNames().forEachRemaining(k -> {
            if (k.startsWith("features.operators.openshift.io/")) {
                features.add(k.substring(k.indexOf('/') + 1) + "=" + csv.at("/metadata/annotations").get(k).asText());
            }
        });
        assertThat(features).containsExactlyInAnyOrder("disconnected=true", "fips-compliant=false", "proxy-aware=false",
                "tls-profiles=false", "token-auth-aws=false", "token-auth-azure=false", "token-auth-gcp=false");
        assertThat(csv.at("/metadata/annotations/operators.openshift.io~1infrastructure-features").isMissingNode())
                .as("the annotation the features replaced").isTrue();
        assertThat(csv.at("/spec/keywords")).isNotEmpty();
        assertThat(csv.at("/spec/maturity").asText()).isEqualTo("alpha");
        assertThat(csv.at("/spec/minKubeVersion").asText()).isNotBlank();
        assertThat(csv.at("/spec/icon/0/base64data").asText()).isNotBlank();

        // Every rule the plain manifests grant a ServiceAccount cluster-wide is in the CSV for that account.
        Map<String, Set<String>> csvRules = rules(csv.at("/spec/install/spec/clusterPermissions"));
        for (Map.Entry<String, Set<String>> e : manifestRules("ClusterRole", "ClusterRoleBinding").entrySet()) {
            assertThat(csvRules.getOrDefault(e.getKey(), Set.of())).as("CSV clusterPermissions of " + e.getKey())
                    .containsAll(e.getValue());
        }
        assertThat(csvRules).containsKeys("joulie-operator", "joulie-agent");
        // ... and every namespaced rule (Roles in joulie-system) is in its namespaced permissions.
        Map<String, Set<String>> csvNamespaced = rules(csv.at("/spec/install/spec/permissions"));
        Map<String, Set<String>> manifestNamespaced = manifestRules("Role", "RoleBinding");
        assertThat(manifestNamespaced.get("joulie-operator")).contains("apps/daemonsets:create", "coordination.k8s.io/leases:update");
        for (Map.Entry<String, Set<String>> e : manifestNamespaced.entrySet()) {
            assertThat(csvNamespaced.getOrDefault(e.getKey(), Set.of())).as("CSV permissions of " + e.getKey())
                    .containsAll(e.getValue());
        }
    }

    /**
     * The release version is in one place (joulie.version in pom.xml, decision 198): the committed manifests, bundle,
     * chart and kustomize example carry it and nothing else, and no snapshot version.
     */
    @Test
    void everyInstallPathCarriesTheOneReleaseVersion() throws IOException {
        Path repo = Manifests.repository();
        Properties p = new Properties();
        try (var in = Files.newInputStream(repo.resolve("src/target/classes/application.properties"))) {
            p.load(in);
        }
        String version = p.getProperty("quarkus.application.version");
        assertThat(version).matches("[0-9]+\\.[0-9]+\\.[0-9]+(-[0-9A-Za-z.-]+)?").doesNotContain("SNAPSHOT");
        assertThat(p.getProperty("quarkus.operator-sdk.bundle.version")).isEqualTo(version);
        assertThat(p.getProperty("quarkus.container-image.tag")).isEqualTo(version);
        for (String dir : List.of("kubernetes", "bundle", "charts", "examples")) {
            try (Stream<Path> s = Files.walk(repo.resolve(dir))) {
                for (Path f : s.filter(Files::isRegularFile).toList()) {
                    String text = Files.readString(f);
                    assertThat(text).as(repo.relativize(f).toString()).doesNotContain("SNAPSHOT");
                    var labels = java.util.regex.Pattern.compile("app\\.kubernetes\\.io/version: \"?([^\"\\s]+)").matcher(text);
                    while (labels.find()) {
                        assertThat(labels.group(1)).as("app.kubernetes.io/version in " + repo.relativize(f)).isIn(version,
                                "{{"); // the chart's helpers: its appVersion
                    }
                    var images = java.util.regex.Pattern.compile("quay\\.io/joulie/joulie-(?:operator|agent):([^\"\\s]+)").matcher(text);
                    while (images.find()) {
                        assertThat(images.group(1)).as("image tag in " + repo.relativize(f)).isEqualTo(version);
                    }
                }
            }
        }
        JsonNode chart = YAML.readTree(repo.resolve("charts/joulie/Chart.yaml").toFile());
        assertThat(chart.get("version").asText()).isEqualTo(version);
        assertThat(chart.get("appVersion").asText()).isEqualTo(version);
        JsonNode csv = YAML.readTree(repo.resolve("bundle/" + CSV).toFile());
        assertThat(csv.at("/spec/version").asText()).isEqualTo(version);
        assertThat(csv.at("/metadata/name").asText()).isEqualTo(NAME_PREFIX + version);
        assertThat(Files.readString(repo.resolve("examples/kustomize/kustomization.yaml"))).contains("newTag: " + version)
                .contains("joulie-agent:" + version);
    }

    @Test
    void theConsoleOffersEveryPolicy() throws IOException {
        JsonNode crd = YAML.readTree(Manifests.repository().resolve("kubernetes/10-crd-joulies.joulie.io.yml").toFile());
        String pattern = crd.at("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/policy/properties/type/pattern")
                .asText();
        var m = java.util.regex.Pattern.compile("\\^\\((.*)\\)\\$").matcher(pattern);
        assertThat(m.matches()).as("policy.type pattern %s", pattern).isTrue();
        String[] descriptor = SPEC_DESCRIPTORS.stream().filter(d -> d[0].equals("policy.type")).findFirst().orElseThrow();
        List<String> offered = java.util.Arrays.stream(descriptor).skip(2).map(x -> x.substring((UI + "select:").length())).toList();
        assertThat(offered).containsExactly(m.group(1).split("\\|"));
    }

    /** serviceAccount → "group/resource:verb" for every rule of a permissions list. */
    private static Map<String, Set<String>> rules(JsonNode permissions) {
        Map<String, Set<String>> out = new LinkedHashMap<>();
        for (JsonNode p : permissions) {
            Set<String> set = out.computeIfAbsent(p.get("serviceAccountName").asText(), k -> new HashSet<>());
            for (JsonNode r : p.get("rules")) {
                expand(r, set);
            }
        }
        return out;
    }

    private static void expand(JsonNode rule, Set<String> into) {
        for (JsonNode g : rule.get("apiGroups")) {
            for (JsonNode res : rule.get("resources")) {
                for (JsonNode v : rule.get("verbs")) {
                    into.add(g.asText() + "/" + res.asText() + ":" + v.asText());
                }
            }
        }
    }

    /** serviceAccount → rules the plain manifests bind to it through roles of {@code roleKind}. */
    private static Map<String, Set<String>> manifestRules(String roleKind, String bindingKind) throws IOException {
        Map<String, JsonNode> roles = new LinkedHashMap<>();
        Map<String, List<String>> bindings = new LinkedHashMap<>();
        String operator = Files.readString(Manifests.repository().resolve("kubernetes/20-operator.yml"));
        Iterator<JsonNode> docs = YAML.readerFor(JsonNode.class).readValues(operator);
        while (docs.hasNext()) {
            JsonNode d = docs.next();
            if (d == null || d.isMissingNode() || d.get("kind") == null) {
                continue;
            }
            String kind = d.get("kind").asText();
            if (kind.equals(roleKind)) {
                roles.put(d.at("/metadata/name").asText(), d);
            } else if (kind.equals(bindingKind)) {
                List<String> sas = bindings.computeIfAbsent(d.at("/roleRef/name").asText(), k -> new java.util.ArrayList<>());
                d.get("subjects").forEach(s -> sas.add(s.get("name").asText()));
            }
        }
        Map<String, Set<String>> out = new LinkedHashMap<>();
        bindings.forEach((role, sas) -> {
            for (String sa : sas) {
                Set<String> set = out.computeIfAbsent(sa, k -> new HashSet<>());
                roles.get(role).get("rules").forEach(r -> expand(r, set));
            }
        });
        return out;
    }
}
