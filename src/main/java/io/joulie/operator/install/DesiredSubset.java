package io.joulie.operator.install;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.javaoperatorsdk.operator.processing.dependent.Matcher;

import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * Whether an object in the cluster already is what the operator wants: every field the desired object sets has
 * the same value in the actual one (maps and objects may hold more, lists must have the same length), labels and
 * annotations included. Defaults the API server fills in, fields other controllers own, and quantities written
 * in another form ({@code 0.5} and {@code 500m}) therefore match; a changed or removed desired value does not.
 *
 * <p>Replaces JOSDK's update-based matcher for the installation's dependents: that one accepts only JSON-diff
 * {@code add} operations, and the diff library turns a server default equal to a value elsewhere in the object
 * (a Service's {@code sessionAffinity: None} beside {@code clusterIP: None}) into a {@code copy} operation, so on
 * a real API server every reconcile rewrote the Services and the DaemonSet, and every rewrite triggered the next
 * reconcile. The mock API server adds no defaults, which is why only the real control plane showed it.
 */
final class DesiredSubset {
    private static final KubernetesSerialization JSON = new KubernetesSerialization();
    private static final Set<String> NOT_COMPARED = Set.of("apiVersion", "kind", "metadata", "status");

    private DesiredSubset() {
    }

    static <R extends HasMetadata> Matcher.Result<R> match(R desired, R actual) {
        return Matcher.Result.computed(matches(desired, actual), desired);
    }

    static boolean matches(HasMetadata desired, HasMetadata actual) {
        if (actual == null) {
            return false;
        }
        JsonNode d = JSON.convertValue(desired, JsonNode.class);
        JsonNode a = JSON.convertValue(actual, JsonNode.class);
        if (!subset(d.path("metadata").path("labels"), a.path("metadata").path("labels"))
                || !subset(d.path("metadata").path("annotations"), a.path("metadata").path("annotations"))) {
            return false;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = d.properties().iterator(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            if (!NOT_COMPARED.contains(field.getKey()) && !subset(field.getValue(), a.path(field.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /** {@code desired} is contained in {@code actual}; an absent or empty desired value is always contained. */
    static boolean subset(JsonNode desired, JsonNode actual) {
        if (desired == null || desired.isMissingNode() || desired.isNull() || desired.isContainerNode() && desired.isEmpty()) {
            return true;
        }
        if (desired.isObject()) {
            if (!actual.isObject()) {
                return false;
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = desired.properties().iterator(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                if (!subset(field.getValue(), actual.path(field.getKey()))) {
                    return false;
                }
            }
            return true;
        }
        if (desired.isArray()) {
            if (!actual.isArray() || actual.size() != desired.size()) {
                return false;
            }
            for (int i = 0; i < desired.size(); i++) {
                if (!subset(desired.get(i), actual.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (actual.isMissingNode() || actual.isNull() || actual.isContainerNode()) {
            return false;
        }
        return desired.asText().equals(actual.asText()) || sameQuantity(desired.asText(), actual.asText());
    }

    private static boolean sameQuantity(String a, String b) {
        try {
            return new Quantity(a).getNumericalAmount().compareTo(new Quantity(b).getNumericalAmount()) == 0;
        } catch (IllegalArgumentException | ArithmeticException notQuantities) {
            return false;
        }
    }
}
