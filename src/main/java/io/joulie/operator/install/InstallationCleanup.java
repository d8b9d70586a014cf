package io.joulie.operator.install;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.operator.cluster.ClusterView;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Deleting the {@code Joulie} resource removes everything it made. Every object carries an owner reference
 * to it, so the API server's garbage collector removes them even while the operator is down; the operator
 * deletes them itself as well, at once, without a finalizer (a finalizer would leave the resource, and an
 * uninstall that removes the CRD, stuck whenever the operator is gone first). Only objects owned by the
 * deleted resource's UID are touched, twice ({@link #SECOND_PASS}). Deleting the DaemonSet stops the agents, which
 * restore the hardware limits they found.
 */
@ApplicationScoped
public class InstallationCleanup {
    private static final Logger LOG = Logger.getLogger(InstallationCleanup.class);

    /**
     * The second pass: the installation controller's informer may still hold the deleted resource, and a reconcile it
     * runs then (started by this very deletion of the DaemonSet, or already in flight) creates the objects again. The
     * garbage collector would remove them too (their owner is gone); the second pass does so without it.
     */
    static final Duration SECOND_PASS = Duration.ofSeconds(3);

    private final KubernetesClient client;
    private final MonitoringTemplate monitoring;
    private final String webhookService;

    public InstallationCleanup(KubernetesClient client, MonitoringTemplate monitoring, io.joulie.operator.config.OperatorConfig config) {
        this.client = client;
        this.monitoring = monitoring;
        this.webhookService = config.webhook().service();
    }

    void register(@Observes StartupEvent ev, ClusterView view) {
        view.onInstallationDeleted(deleted -> {
            cleanUp(deleted);
            CompletableFuture.runAsync(() -> cleanUp(deleted), CompletableFuture.delayedExecutor(SECOND_PASS.toMillis(),
                    TimeUnit.MILLISECONDS));
        });
    }

    void cleanUp(Joulie deleted) {
        String uid = deleted.getMetadata().getUid();
        String ns = monitoring.namespace();
        deleteOwned(client.apps().daemonSets().inNamespace(ns).withName(AgentTemplate.NAME).get(), uid);
        deleteOwned(client.services().inNamespace(ns).withName(AgentTemplate.NAME).get(), uid);
        deleteOwned(client.services().inNamespace(ns).withName(AgentTemplate.OPERATOR_METRICS).get(), uid);
        deleteOwned(client.configMaps().inNamespace(ns).withName(MonitoringTemplate.DASHBOARD).get(), uid);
        deleteOwned(client.services().inNamespace(ns).withName(webhookService).get(), uid);
        deleteOwned(client.admissionRegistration().v1().mutatingWebhookConfigurations().withName(WebhookTemplate.CONFIGURATION).get(), uid);
        deleteOwned(client.admissionRegistration().v1().validatingAdmissionPolicyBindings().withName(AgentTemplate.ADMISSION_POLICY).get(), uid);
        deleteOwned(client.admissionRegistration().v1().validatingAdmissionPolicies().withName(AgentTemplate.ADMISSION_POLICY).get(), uid);
        for (String name : List.of(AgentTemplate.OPERATOR_METRICS, AgentTemplate.NAME)) {
            deleteOwnedGeneric(MonitoringTemplate.SERVICE_MONITOR, ns, name, uid);
        }
        deleteOwnedGeneric(MonitoringTemplate.PROMETHEUS_RULE, ns, MonitoringTemplate.RULES, uid);
    }

    private void deleteOwned(HasMetadata o, String uid) {
        if (o != null && ownedBy(o, uid)) {
            try {
                client.resource(o).delete();
                LOG.infof("Joulie resource deleted: removed %s %s/%s", o.getKind(), o.getMetadata().getNamespace(),
                        o.getMetadata().getName());
            } catch (KubernetesClientException e) {
                if (e.getCode() != 404) { // 404: another replica or the garbage collector was first
                    LOG.warnf("Could not delete %s %s (the garbage collector will): %s", o.getKind(),
                            o.getMetadata().getName(), e.getMessage());
                }
            }
        }
    }

    private void deleteOwnedGeneric(ResourceDefinitionContext kind, String ns, String name, String uid) {
        try {
            deleteOwned(client.genericKubernetesResources(kind).inNamespace(ns).withName(name).get(), uid);
        } catch (KubernetesClientException e) {
            // 404 on the kind itself: the Prometheus Operator CRDs are not installed, so there is nothing to remove.
            if (e.getCode() != 404) {
                LOG.warnf("Could not look up %s %s: %s", kind.getKind(), name, e.getMessage());
            }
        }
    }

    static boolean ownedBy(HasMetadata o, String uid) {
        return o.getMetadata().getOwnerReferences() != null
                && o.getMetadata().getOwnerReferences().stream().anyMatch(r -> uid != null && uid.equals(r.getUid()));
    }
}
