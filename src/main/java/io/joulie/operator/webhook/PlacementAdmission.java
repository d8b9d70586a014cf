package io.joulie.operator.webhook;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionRequest;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponse;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponseBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.joulie.planner.EcoPlacement;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The mutating admission webhook's answer (decision 209): for a Pod being created, the JSON patch that
 * {@link EcoPlacement} asks for (the eco preference of an eco-tolerant Pod), as one {@code add} of
 * {@code /spec/affinity} (which replaces the affinity with itself plus the term). Every Pod is allowed: the webhook
 * only adds a preference, and what it cannot read it lets through unchanged, with the reason in the answer's warnings.
 * Pure: no client, no I/O.
 *
 * <p>Called for a namespace labelled {@code joulie.io/workload-class=eco} (the API server sends only those Pods to the
 * namespace-default path, decision 213), a Pod that names neither a workload class nor the power profile is also
 * annotated {@code joulie.io/workload-class: eco} in the same patch (its annotations written whole, with the class).
 */
public final class PlacementAdmission {
    private final KubernetesSerialization json;

    public PlacementAdmission(KubernetesSerialization json) {
        this.json = json;
    }

    /** What the webhook did with one review. */
    public enum Outcome {
        /** The Pod got the eco preference. */
        PATCHED,
        /** The Pod got its namespace's default class (the annotation) and the eco preference. */
        NAMESPACE_DEFAULT,
        /** Nothing to add: not eco-tolerant, or the Pod names the power profile itself. */
        UNCHANGED,
        /** Not a Pod create the webhook can read: allowed unchanged. */
        UNREADABLE
    }

    /** The answer, and what it did. */
    public record Answer(String body, Outcome outcome) {
    }

    /** The AdmissionReview to send back for this request body, the Pod's namespace having no default class. */
    public Answer review(String body) {
        return review(body, false);
    }

    /**
     * The AdmissionReview to send back for this request body.
     *
     * @param namespaceDefault the Pod's namespace makes eco its Pods' default class
     */
    public Answer review(String body, boolean namespaceDefault) {
        AdmissionReview in;
        try {
            in = json.unmarshal(body, AdmissionReview.class);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not an AdmissionReview: " + e.getMessage(), e);
        }
        AdmissionRequest request = in == null ? null : in.getRequest();
        if (request == null || request.getUid() == null) {
            throw new IllegalArgumentException("an AdmissionReview without a request uid");
        }
        AdmissionResponseBuilder response = new AdmissionResponseBuilder().withUid(request.getUid()).withAllowed(true);
        Outcome outcome;
        Pod pod = null;
        try {
            pod = request.getObject() == null ? null : json.convertValue(request.getObject(), Pod.class);
        } catch (RuntimeException e) {
            response.withWarnings("joulie.io placement: the object is not a readable Pod (" + e.getMessage() + "); left unchanged");
        }
        if (pod == null || !"Pod".equals(pod.getKind())) {
            outcome = Outcome.UNREADABLE;
        } else {
            List<Map<String, Object>> ops = new ArrayList<>();
            boolean byDefault = namespaceDefault && EcoPlacement.takesNamespaceDefault(pod);
            if (byDefault) {
                // the whole map, as for the affinity: "add" replaces a member that is there and makes one that is not, and
                // the model cannot tell an absent map from an empty one
                Map<String, String> annotations = EcoPlacement.declaredEco(pod).getMetadata().getAnnotations();
                ops.add(pod.getMetadata() == null ? Map.of("op", "add", "path", "/metadata", "value", Map.of("annotations", annotations))
                        : Map.of("op", "add", "path", "/metadata/annotations", "value", annotations));
            }
            Optional<Affinity> affinity = EcoPlacement.affinityWithEcoPreference(byDefault ? EcoPlacement.declaredEco(pod) : pod);
            affinity.ifPresent(a -> ops.add(Map.of("op", "add", "path", "/spec/affinity", "value", a)));
            if (ops.isEmpty()) {
                outcome = Outcome.UNCHANGED;
            } else {
                String patch = json.asJson(ops);
                response.withPatchType("JSONPatch")
                        .withPatch(Base64.getEncoder().encodeToString(patch.getBytes(StandardCharsets.UTF_8)));
                outcome = byDefault ? Outcome.NAMESPACE_DEFAULT : Outcome.PATCHED;
            }
        }
        AdmissionResponse r = response.build();
        AdmissionReview out = new AdmissionReview();
        out.setApiVersion(in.getApiVersion() == null ? "admission.k8s.io/v1" : in.getApiVersion());
        out.setKind("AdmissionReview");
        out.setResponse(r);
        return new Answer(json.asJson(out), outcome);
    }
}
