package io.joulie.operator.install;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Constants;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.joulie.api.v1alpha1.ConditionReason;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieCondition;
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.api.v1alpha1.JoulieStatusAggregator;
import io.quarkiverse.operatorsdk.annotations.CSVMetadata;
import io.quarkus.arc.Arc;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The monitoring concern of the {@code Joulie} resource, a controller of its own: the Grafana dashboard
 * ConfigMap (a JOSDK dependent) and, when the Prometheus Operator's CRDs exist, ServiceMonitors for the
 * operator and the agents and a PrometheusRule with the alerts. Those two kinds are optional in a cluster,
 * so they are not JOSDK dependents (whose informers would fail without the CRDs): they are read and written
 * here, only when they differ from the desired objects. Without the CRDs nothing fails: the outcome is a
 * {@code MonitoringReady=False} condition, and the CRDs are looked for again every few minutes. The
 * outcome goes to {@link MonitoringState}; the {@code Joulie} reconciler writes it into the status.
 */
@Workflow(dependents = @Dependent(name = "grafana-dashboard", type = MonitoringReconciler.Dashboard.class,
        reconcilePrecondition = MonitoringReconciler.DashboardWanted.class))
@ControllerConfiguration(name = "joulie-monitoring")
@CSVMetadata(bundleName = JoulieBundle.NAME)
public class MonitoringReconciler implements Reconciler<Joulie> {
    private static final Logger LOG = Logger.getLogger(MonitoringReconciler.class);
    /** How often missing Prometheus Operator CRDs are looked for again. */
    static final Duration CRD_RECHECK = Duration.ofMinutes(2);

    private final KubernetesClient client;
    private final MonitoringTemplate template;
    private final MonitoringState state;

    public MonitoringReconciler(KubernetesClient client, MonitoringTemplate template, MonitoringState state) {
        this.client = client;
        this.template = template;
        this.state = state;
    }

    /** The dashboard ConfigMap, for the active resource with {@code spec.monitoring.grafanaDashboard} not false. */
    @KubernetesDependent(informer = @Informer(namespaces = Constants.WATCH_CURRENT_NAMESPACE,
            labelSelector = "grafana_dashboard=1,app.kubernetes.io/part-of=joulie"))
    public static final class Dashboard extends CRUDKubernetesDependentResource<ConfigMap, Joulie> {
        public Dashboard() {
            super(ConfigMap.class);
        }

        @Override
        protected ConfigMap desired(Joulie primary, Context<Joulie> context) {
            return Arc.container().instance(MonitoringTemplate.class).get().dashboard(primary);
        }
    }

    public static final class DashboardWanted implements io.javaoperatorsdk.operator.processing.dependent.workflow.Condition<ConfigMap, Joulie> {
        @Override
        public boolean isMet(DependentResource<ConfigMap, Joulie> dependent, Joulie primary,
                             Context<Joulie> context) {
            return Joulie.ACTIVE_NAME.equals(primary.getMetadata().getName())
                    && MonitoringTemplate.monitoring(primary).grafanaDashboardEnabled();
        }
    }

    @Override
    public UpdateControl<Joulie> reconcile(Joulie joulie, Context<Joulie> context) {
        if (!Joulie.ACTIVE_NAME.equals(joulie.getMetadata().getName())) {
            return UpdateControl.noUpdate();
        }
        JoulieSpec.Monitoring m = MonitoringTemplate.monitoring(joulie);
        List<String> created = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        try {
            if (m.grafanaDashboardEnabled()) {
                created.add("Grafana dashboard ConfigMap " + MonitoringTemplate.DASHBOARD);
            }
            converge(MonitoringTemplate.SERVICE_MONITOR, MonitoringTemplate.SERVICE_MONITOR_CRD, m.serviceMonitorEnabled(),
                    template.serviceMonitors(joulie), "ServiceMonitors", created, missing);
            converge(MonitoringTemplate.PROMETHEUS_RULE, MonitoringTemplate.PROMETHEUS_RULE_CRD, m.prometheusRulesEnabled(),
                    List.of(template.prometheusRule(joulie)), "PrometheusRule", created, missing);
        } catch (KubernetesClientException e) {
            LOG.warnf("Monitoring objects could not be reconciled: %s", e.getMessage());
            state.publish(JoulieStatusAggregator.condition(JoulieCondition.MonitoringReady, false, ConditionReason.MonitoringError,
                    "monitoring objects could not be written: " + e.getMessage()));
            return UpdateControl.<Joulie>noUpdate().rescheduleAfter(Duration.ofMinutes(1));
        }
        if (!missing.isEmpty()) {
            state.publish(JoulieStatusAggregator.condition(JoulieCondition.MonitoringReady, false, ConditionReason.PrometheusOperatorMissing,
                    String.join("; ", missing) + (created.isEmpty() ? "" : "; created: " + String.join(", ", created))));
            return UpdateControl.<Joulie>noUpdate().rescheduleAfter(CRD_RECHECK);
        }
        state.publish(created.isEmpty()
                ? JoulieStatusAggregator.condition(JoulieCondition.MonitoringReady, true, ConditionReason.Disabled, "spec.monitoring turns every monitoring object off")
                : JoulieStatusAggregator.condition(JoulieCondition.MonitoringReady, true, ConditionReason.Ready, "created: " + String.join(", ", created)));
        return UpdateControl.noUpdate();
    }

    /** Creates, updates or deletes the objects of one optional kind, writing only what differs. */
    private void converge(ResourceDefinitionContext kind, String crd, boolean wanted, List<GenericKubernetesResource> desired,
                          String what, List<String> created, List<String> missing) {
        if (client.apiextensions().v1().customResourceDefinitions().withName(crd).get() == null) {
            if (wanted) {
                missing.add(crd + " is not installed (no Prometheus Operator?): " + what + " not created");
            }
            return;
        }
        for (GenericKubernetesResource d : desired) {
            var all = client.genericKubernetesResources(kind).inNamespace(template.namespace());
            var op = all.withName(d.getMetadata().getName());
            GenericKubernetesResource current = op.get();
            if (!wanted) {
                if (current != null) {
                    op.delete();
                    LOG.infof("Deleted %s %s (turned off in spec.monitoring)", kind.getKind(), d.getMetadata().getName());
                }
                continue;
            }
            if (current == null) {
                all.resource(d).create();
                LOG.infof("Created %s %s", kind.getKind(), d.getMetadata().getName());
            } else if (!same(current, d)) {
                d.getMetadata().setResourceVersion(current.getMetadata().getResourceVersion());
                all.resource(d).update();
                LOG.infof("Updated %s %s", kind.getKind(), d.getMetadata().getName());
            }
        }
        if (wanted) {
            created.add(what + " " + desired.stream().map(r -> r.getMetadata().getName()).toList());
        }
    }

    private static boolean same(GenericKubernetesResource current, GenericKubernetesResource desired) {
        return Objects.equals(current.getAdditionalProperties().get("spec"), desired.getAdditionalProperties().get("spec"))
                && Objects.equals(current.getMetadata().getLabels(), desired.getMetadata().getLabels())
                && Objects.equals(current.getMetadata().getOwnerReferences(), desired.getMetadata().getOwnerReferences());
    }
}
