package io.joulie.operator.manifests;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The chart's {@code values.schema.json}: Helm checks the values against it before it renders anything ({@code helm
 * install}, {@code upgrade}, {@code template}, {@code lint}), so a key the chart does not know, misspelt or
 * conventional but absent, fails instead of being ignored. Every object of the chart's own values allows only its
 * keys. {@code joulie.spec} is the {@code Joulie} CRD's spec schema (without {@code monitoring}, which the
 * {@code monitoring} values set), made strict the same way, so a misspelt policy field fails at install too, and the
 * operator's placement values take the CRD's schemas of the agent's (node selector, tolerations, affinity, resources,
 * pull secrets, priority class). The CRD's OpenAPI (draft 4 style) becomes JSON Schema draft 7: boolean
 * {@code exclusiveMinimum}/{@code exclusiveMaximum} become numbers, the {@code x-kubernetes-*} extensions (CEL rules
 * among them: the API server checks those) are left out. Free-form Kubernetes objects ({@code podSecurityContext},
 * {@code volumes}) are left to the API server's own schema, which {@code helm install} applies strictly.
 */
final class ChartSchema {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ChartSchema() {
    }

    /** The schema, from the {@code Joulie} CRD's manifest. */
    static String of(String joulieCrd) {
        JsonNode crd = JSON.valueToTree(new KubernetesSerialization().unmarshal(joulieCrd, Map.class));
        JsonNode specSchema = crd.at("/spec/versions/0/schema/openAPIV3Schema/properties/spec");
        if (specSchema.isMissingNode()) {
            throw new IllegalStateException("no spec schema in the Joulie CRD");
        }
        ObjectNode spec = strict(specSchema);
        ((ObjectNode) spec.get("properties")).remove("monitoring");
        spec.put("description", spec.path("description").asText() + " Its monitoring is the chart's monitoring values.");
        JsonNode agent = spec.at("/properties/agent/properties");

        ObjectNode root = object("The Joulie chart's values (docs/install.md, \"Helm\").",
                "global", object("Values of both images.",
                        "imageRegistry", string("A registry that replaces both images' registry (a mirror), e.g. registry.example.com.",
                                "^([^\\s/@:]+(:[0-9]+)?(/[^\\s/@:]+)*)?$"),
                        "imagePullSecrets", pullSecrets(agent, "Pull secrets of the operator's and the agents' Pods.")),
                "operator", object("The operator's Deployment.",
                        "replicaCount", integer("Replicas of the operator; one leads.", 0),
                        "image", image("The operator's image."),
                        "imagePullSecrets", pullSecrets(agent, "Pull secrets of the operator's Pod, after global.imagePullSecrets."),
                        "env", stringMap("Extra environment of the operator: deployment settings (docs/configuration.md).",
                                "^[-._a-zA-Z][-._a-zA-Z0-9]*$"),
                        "resources", quantities(described(agent.get("resources"), "The operator container's resources.")),
                        "volumes", objects("Volumes of the operator's Pod (Kubernetes Volume objects)."),
                        "volumeMounts", objects("Mounts of those volumes in the operator's container (Kubernetes VolumeMount objects)."),
                        "nodeSelector", described(agent.get("nodeSelector"), "Node labels the operator's Pod requires."),
                        "tolerations", described(agent.get("tolerations"), "Taints the operator's Pod tolerates."),
                        "affinity", described(agent.get("affinity"), "The operator's Pod's affinity."),
                        "priorityClassName", optional(agent.get("priorityClassName"), "The operator's Pod's PriorityClass; empty: none."),
                        "podSecurityContext", freeObject("The operator's Pod's securityContext (a Kubernetes PodSecurityContext)."),
                        "securityContext", freeObject("The operator container's securityContext (a Kubernetes SecurityContext)."),
                        "podAnnotations", stringMap("Extra annotations of the operator's Pod.", null),
                        "podLabels", stringMap("Extra labels of the operator's Pod.", null)),
                "agent", object("The node agent the operator deploys.",
                        "image", image("The agent's image (RELATED_IMAGE_AGENT), unless joulie.spec.agent.image names another.")),
                "monitoring", object("The Joulie resource's spec.monitoring.",
                        "serviceMonitor", enabled("ServiceMonitors for the operator's and the agents' metrics, when the Prometheus "
                                + "Operator's CRDs exist."),
                        "prometheusRule", enabled("A PrometheusRule with Joulie's alerts, when the Prometheus Operator's CRDs exist."),
                        "grafanaDashboard", enabled("A ConfigMap labelled grafana_dashboard=1 with Joulie's Grafana dashboard."),
                        "labels", strict(crd.at("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/monitoring/properties/labels"))),
                "joulie", object("The Joulie resource the chart creates.",
                        "create", bool("Create it; false installs the operator only."),
                        "spec", spec));
        root.put("$schema", "http://json-schema.org/draft-07/schema#");
        try {
            return JSON.writeValueAsString(root) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** An object with these properties (name, schema, …) and no other. */
    private static ObjectNode object(String description, Object... properties) {
        ObjectNode o = JSON.createObjectNode().put("type", "object").put("description", description);
        ObjectNode props = o.putObject("properties");
        for (int i = 0; i < properties.length; i += 2) {
            props.set((String) properties[i], (JsonNode) properties[i + 1]);
        }
        o.put("additionalProperties", false);
        return o;
    }

    private static ObjectNode image(String description) {
        return object(description,
                "registry", string("The registry, e.g. quay.io; global.imageRegistry replaces it.", "^([^\\s/@:]+(:[0-9]+)?(/[^\\s/@:]+)*)?$"),
                "repository", string("The repository in the registry, e.g. joulie/joulie-operator.", "^[a-z0-9]+([._/-][a-z0-9]+)*$"),
                "tag", string("The tag; empty: the chart's appVersion.", "^([A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?$"),
                "digest", string("sha256:<64 hex digits>: the image by digest (the tag is not used); empty: by tag.",
                        "^(sha256:[a-f0-9]{64})?$"),
                "pullPolicy", string("Always, IfNotPresent or Never.", "^(Always|IfNotPresent|Never)$"));
    }

    private static ObjectNode string(String description, String pattern) {
        ObjectNode s = JSON.createObjectNode().put("type", "string").put("description", description);
        return pattern == null ? s : s.put("pattern", pattern);
    }

    private static ObjectNode integer(String description, int minimum) {
        return JSON.createObjectNode().put("type", "integer").put("description", description).put("minimum", minimum);
    }

    private static ObjectNode bool(String description) {
        return JSON.createObjectNode().put("type", "boolean").put("description", description);
    }

    private static ObjectNode enabled(String description) {
        return object(description, "enabled", bool("Create them (default true)."));
    }

    private static ObjectNode stringMap(String description, String keyPattern) {
        ObjectNode m = JSON.createObjectNode().put("type", "object").put("description", description);
        m.putObject("additionalProperties").put("type", "string");
        if (keyPattern != null) {
            m.putObject("propertyNames").put("pattern", keyPattern);
        }
        return m;
    }

    private static ObjectNode freeObject(String description) {
        return JSON.createObjectNode().put("type", "object").put("description", description);
    }

    private static ObjectNode objects(String description) {
        ObjectNode a = JSON.createObjectNode().put("type", "array").put("description", description);
        a.putObject("items").put("type", "object");
        return a;
    }

    private static ObjectNode pullSecrets(JsonNode agent, String description) {
        return described(agent.get("imagePullSecrets"), description);
    }

    /** The CRD's schema of this field, strict, with the chart's description. */
    private static ObjectNode described(JsonNode crdField, String description) {
        if (crdField == null) {
            throw new IllegalStateException("the Joulie CRD's spec.agent lacks a field the chart's schema takes: " + description);
        }
        return strict(crdField).put("description", description);
    }

    /**
     * A Pod's resource quantities as the API server takes them in a Deployment: a number (0.5) or a string; the CRD's
     * int-or-string (what a custom resource may hold) refuses a fraction.
     */
    private static ObjectNode quantities(ObjectNode resources) {
        for (String field : List.of("limits", "requests")) {
            JsonNode anyOf = resources.at("/properties/" + field + "/additionalProperties/anyOf");
            if (!anyOf.isArray()) {
                throw new IllegalStateException("the CRD's resources." + field + " is not int-or-string");
            }
            anyOf.forEach(t -> {
                if (t.path("type").asText().equals("integer")) {
                    ((ObjectNode) t).put("type", "number");
                }
            });
        }
        return resources;
    }

    /** The CRD's string field, or empty (the chart's default: not set). */
    private static ObjectNode optional(JsonNode crdField, String description) {
        ObjectNode s = described(crdField, description);
        s.put("pattern", "^$|" + s.get("pattern").asText());
        return s;
    }

    /**
     * A copy of a CRD schema as JSON Schema draft 7, every object with properties allowing only those (unless it says
     * what else it allows).
     */
    static ObjectNode strict(JsonNode crdSchema) {
        ObjectNode out = JSON.createObjectNode();
        List<String> fields = new ArrayList<>();
        crdSchema.fieldNames().forEachRemaining(fields::add);
        for (String field : fields) {
            JsonNode v = crdSchema.get(field);
            if (field.startsWith("x-kubernetes-") || field.equals("nullable")) {
                continue;
            }
            switch (field) {
                case "properties" -> {
                    ObjectNode props = out.putObject("properties");
                    v.fields().forEachRemaining(e -> props.set(e.getKey(), strict(e.getValue())));
                }
                case "items", "not" -> out.set(field, strict(v));
                case "additionalProperties" -> out.set(field, v.isObject() ? strict(v) : v);
                case "anyOf", "allOf", "oneOf" -> {
                    ArrayNode list = out.putArray(field);
                    v.forEach(s -> list.add(strict(s)));
                }
                case "exclusiveMinimum", "exclusiveMaximum" -> {
                    // draft 4: a flag on minimum/maximum; draft 7: the bound itself
                    String bound = field.equals("exclusiveMinimum") ? "minimum" : "maximum";
                    if (v.asBoolean()) {
                        out.set(field, crdSchema.get(bound));
                    }
                }
                default -> out.set(field, v.deepCopy());
            }
        }
        for (String bound : List.of("minimum", "maximum")) {
            String exclusive = "exclusive" + Character.toUpperCase(bound.charAt(0)) + bound.substring(1);
            if (out.has(exclusive)) {
                out.remove(bound);
            }
        }
        if (out.has("properties") && !out.has("additionalProperties")
                && !crdSchema.path("x-kubernetes-preserve-unknown-fields").asBoolean()) {
            out.put("additionalProperties", false);
        }
        return out;
    }
}
