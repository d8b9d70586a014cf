package io.joulie.operator.install;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.joulie.api.v1alpha1.Joulie;
import io.quarkiverse.operatorsdk.annotations.CSVMetadata;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.List;

/**
 * OpenShift admits a pod only under a SecurityContextConstraints its ServiceAccount may use, and none of the built-in
 * ones fits the agent without granting far more (only {@code privileged} allows host paths, root and an added
 * capability together). This controller of the {@code Joulie} resource creates the SCC {@code joulie-agent}
 * ({@code src/main/resources/openshift/joulie-agent-scc.yaml}: exactly what the agent DaemonSet asks for), owned by
 * the resource, where the SecurityContextConstraints API exists; the agent's ClusterRole may {@code use} it by name.
 * Elsewhere it does nothing: one read of the CRD by name when the resource is created or changed, no watch. It is
 * written only when it differs from the file. An OLM bundle cannot ship this kind, and both install ways get the same
 * object (docs/install.md, "Platform admission").
 */
@ControllerConfiguration(name = "joulie-openshift")
@CSVMetadata(bundleName = JoulieBundle.NAME)
public class OpenShiftReconciler implements Reconciler<Joulie> {
    private static final Logger LOG = Logger.getLogger(OpenShiftReconciler.class);
    public static final String SCC = "joulie-agent";
    static final String SCC_CRD = "securitycontextconstraints.security.openshift.io";
    static final ResourceDefinitionContext KIND = new ResourceDefinitionContext.Builder().withGroup("security.openshift.io")
            .withVersion("v1").withKind("SecurityContextConstraints").withPlural("securitycontextconstraints").withNamespaced(false)
            .build();
    static final String FILE = "openshift/joulie-agent-scc.yaml";

    private final KubernetesClient client;
    private final String scc;

    public OpenShiftReconciler(KubernetesClient client) {
        this.client = client;
        this.scc = MonitoringTemplate.read(FILE);
    }

    /** The SCC as the file says, owned by the {@code Joulie} resource (the garbage collector removes it with it). */
    GenericKubernetesResource desired(Joulie joulie) {
        GenericKubernetesResource r = client.getKubernetesSerialization().unmarshal(scc, GenericKubernetesResource.class);
        r.getMetadata().setLabels(AgentTemplate.LABELS);
        r.getMetadata().setOwnerReferences(List.of(new OwnerReferenceBuilder().withApiVersion(joulie.getApiVersion())
                .withKind(joulie.getKind()).withName(joulie.getMetadata().getName()).withUid(joulie.getMetadata().getUid())
                .withBlockOwnerDeletion(false).build()));
        return r;
    }

    @Override
    public UpdateControl<Joulie> reconcile(Joulie joulie, Context<Joulie> context) {
        if (!Joulie.ACTIVE_NAME.equals(joulie.getMetadata().getName())) {
            return UpdateControl.noUpdate();
        }
        try {
            if (client.apiextensions().v1().customResourceDefinitions().withName(SCC_CRD).get() == null) {
                return UpdateControl.noUpdate();
            }
            GenericKubernetesResource wanted = desired(joulie);
            var op = client.genericKubernetesResources(KIND).withName(SCC);
            GenericKubernetesResource current = op.get();
            if (current == null) {
                client.genericKubernetesResources(KIND).resource(wanted).create();
                LOG.infof("Created SecurityContextConstraints %s for the agent", SCC);
            } else if (!DesiredSubset.matches(wanted, current)) {
                wanted.getMetadata().setResourceVersion(current.getMetadata().getResourceVersion());
                client.genericKubernetesResources(KIND).resource(wanted).update();
                LOG.infof("Updated SecurityContextConstraints %s", SCC);
            }
            return UpdateControl.noUpdate();
        } catch (KubernetesClientException e) {
            LOG.warnf("SecurityContextConstraints %s could not be written: %s", SCC, e.getMessage());
            return UpdateControl.<Joulie>noUpdate().rescheduleAfter(Duration.ofMinutes(1));
        }
    }
}
