package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.joulie.api.v1alpha1.ConditionReason;
import io.joulie.api.v1alpha1.JoulieStatusAggregator.Problem;
import io.joulie.operator.config.OperatorConfig;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Whether the {@code joulie.io} CRDs installed are this project's. Another project (the Go Joulie,
 * github.com/joulie-k8s/Joulie) defines {@code nodehardwares.joulie.io} {@code v1alpha1} with a schema of its own; an
 * operator acting on objects of a foreign schema would misread them and write what the other project's controllers
 * do not expect. Every CRD this project ships carries the annotation {@link #MARKER} (kubernetes/, the Helm chart,
 * kustomize, the OLM bundle); a {@code joulie.io} CRD of one of our names without it is foreign. Looked at on the
 * first reconcile of the {@code Joulie} resource or the first planner tick (reads of four CRDs by name), and kept once
 * all four were seen; a CRD replaced afterwards is seen after a restart of the operator (docs/install.md, "Coming from
 * the Go Joulie"). Missing CRDs are not foreign: the informers report those.
 */
@ApplicationScoped
public class CrdOwnership {
    private static final Logger LOG = Logger.getLogger(CrdOwnership.class);
    /** The annotation every CRD of this project carries, and its value. */
    public static final String MARKER = "joulie.io/schema";
    public static final String MARKER_VALUE = "joulie-io/joulie";
    /** The CRDs this project installs. */
    public static final List<String> CRDS = List.of("joulies.joulie.io", "nodepowerprofiles.joulie.io",
            "telemetryprofiles.joulie.io", "nodehardwares.joulie.io");
    static final String WAY_FORWARD = "remove the other project's CRD and its objects first, then install Joulie's "
            + "(docs/install.md, \"Coming from the Go Joulie\"); Joulie does not act while it is installed";

    private final KubernetesClient client;
    private final boolean enabled;
    private volatile Optional<Problem> found;

    public CrdOwnership(KubernetesClient client, OperatorConfig config) {
        this.client = client;
        this.enabled = config.crdCheck();
    }

    /** The foreign CRDs as a {@code Degraded} problem, empty when every installed one is ours (or the check is off). */
    public Optional<Problem> foreign() {
        Optional<Problem> f = found;
        if (f == null) {
            synchronized (this) {
                if (found != null) {
                    return found;
                }
                if (!enabled) {
                    found = Optional.empty();
                    return found;
                }
                List<CustomResourceDefinition> installed = installed();
                f = problem(installed);
                f.ifPresent(p -> LOG.errorf("Not acting on the Joulie resource: %s", p.message()));
                // Kept once every CRD was seen (or a foreign one): one missing (not applied yet) is looked for again
                if (f.isPresent() || installed.size() == CRDS.size()) {
                    found = f;
                }
            }
        }
        return f;
    }

    private List<CustomResourceDefinition> installed() {
        List<CustomResourceDefinition> installed = new ArrayList<>();
        for (String name : CRDS) {
            try {
                CustomResourceDefinition crd = client.apiextensions().v1().customResourceDefinitions().withName(name).get();
                if (crd != null) {
                    installed.add(crd);
                }
            } catch (KubernetesClientException e) {
                LOG.warnf("Could not read CustomResourceDefinition %s to check it is Joulie's: %s", name, e.getMessage());
            }
        }
        return installed;
    }

    /** The problem the foreign CRDs among {@code installed} make, if any (pure). */
    static Optional<Problem> problem(List<CustomResourceDefinition> installed) {
        List<String> foreign = installed.stream().filter(crd -> !isOurs(crd)).map(crd -> crd.getMetadata().getName()).toList();
        if (foreign.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Problem(ConditionReason.ForeignCustomResourceDefinition, String.join(", ", foreign)
                + (foreign.size() == 1 ? " is" : " are") + " installed without the annotation " + MARKER + ": "
                + MARKER_VALUE + ", so " + (foreign.size() == 1 ? "it is" : "they are") + " another project's (the Go Joulie "
                + "defines nodehardwares.joulie.io v1alpha1 with a different schema); " + WAY_FORWARD));
    }

    static boolean isOurs(CustomResourceDefinition crd) {
        Map<String, String> annotations = crd.getMetadata().getAnnotations();
        return annotations != null && MARKER_VALUE.equals(annotations.get(MARKER));
    }
}
