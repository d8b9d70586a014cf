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
        /** Nothing to add: not eco-tolerant, or the Pod names the power profile itself. */
        UNCHANGED,
        /** Not a Pod create the webhook can read: allowed unchanged. */
        UNREADABLE
    }

    /** The answer, and what it did. */
    public record Answer(String body, Outcome outcome) {
    }

    /** The AdmissionReview to send back for this request body. */
    public Answer review(String body) {
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
            Optional<Affinity> affinity = EcoPlacement.affinityWithEcoPreference(pod);
            if (affinity.isPresent()) {
                String patch = json.asJson(List.of(Map.of("op", "add", "path", "/spec/affinity", "value", affinity.get())));
                response.withPatchType("JSONPatch")
                        .withPatch(Base64.getEncoder().encodeToString(patch.getBytes(StandardCharsets.UTF_8)));
                outcome = Outcome.PATCHED;
            } else {
                outcome = Outcome.UNCHANGED;
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
