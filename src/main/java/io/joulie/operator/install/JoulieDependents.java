package io.joulie.operator.install;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.openshift.api.model.SecurityContextConstraints;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Constants;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.api.reconciler.dependent.ReconcileResult;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.javaoperatorsdk.operator.processing.dependent.workflow.CRDPresentActivationCondition;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;
import io.joulie.api.v1alpha1.Joulie;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The objects a {@code Joulie} resource owns, one JOSDK dependent resource each, in the one workflow of
 * {@link JoulieReconciler}. They live in the operator's namespace (the admission policy, its binding and the SCC are
 * cluster-scoped), carry an owner reference to the (cluster-scoped) {@code Joulie}, and are only reconciled for the
 * active one (named {@code joulie}). They are CDI beans (Quarkus Operator SDK makes every dependent one), so their
 * templates are injected. They are written with server-side apply and compared by JOSDK's managed-fields matcher: only
 * the fields the operator applied count, so what an admission step or another controller adds does not make a
 * difference (decision 132).
 */
final class JoulieDependents {
    /** How often a missing optional CRD is looked for again, at most (and the reconciler comes back). */
    static final String RECHECK = "joulie.optional-crd-recheck";

    private JoulieDependents() {
    }

    /** Only the {@code Joulie} named {@code joulie} gets an agent. */
    public static final class Active implements Condition<HasMetadata, Joulie> {
        @Override
        public boolean isMet(DependentResource<HasMetadata, Joulie> dependent, Joulie primary, Context<Joulie> context) {
            return Joulie.ACTIVE_NAME.equals(primary.getMetadata().getName());
        }
    }

    /**
     * The agent's admission policy is in force: the operator's informers hold both the policy and its binding, so the API
     * server has them. The agent DaemonSet depends on it (decision 143): no agent pod runs with the bare ClusterRole, which
     * would let it patch every Node and write any node's NodeHardware.
     */
    public static final class AdmissionInForce implements Condition<ValidatingAdmissionPolicyBinding, Joulie> {
        @Override
        public boolean isMet(DependentResource<ValidatingAdmissionPolicyBinding, Joulie> dependent, Joulie primary,
                             Context<Joulie> context) {
            return inForce(context.getSecondaryResource(ValidatingAdmissionPolicy.class), dependent.getSecondaryResource(primary, context));
        }

        static boolean inForce(java.util.Optional<ValidatingAdmissionPolicy> policy, java.util.Optional<ValidatingAdmissionPolicyBinding> binding) {
            return policy.filter(p -> AgentTemplate.ADMISSION_POLICY.equals(p.getMetadata().getName())).isPresent()
                    && binding.filter(b -> AgentTemplate.ADMISSION_POLICY.equals(b.getMetadata().getName())
                    && b.getSpec() != null && AgentTemplate.ADMISSION_POLICY.equals(b.getSpec().getPolicyName())).isPresent();
        }
    }

    /** The dashboard ConfigMap, for the active resource with {@code spec.monitoring.grafanaDashboard} not false. */
    public static final class DashboardWanted implements Condition<ConfigMap, Joulie> {
        @Override
        public boolean isMet(DependentResource<ConfigMap, Joulie> dependent, Joulie primary, Context<Joulie> context) {
            return Joulie.ACTIVE_NAME.equals(primary.getMetadata().getName())
                    && MonitoringTemplate.monitoring(primary).grafanaDashboardEnabled();
        }
    }

    /** The placement webhook's objects, for the active resource when the operator serves it and spec.placement wants it. */
    public static final class PlacementWanted implements Condition<HasMetadata, Joulie> {
        @Override
        public boolean isMet(DependentResource<HasMetadata, Joulie> dependent, Joulie primary, Context<Joulie> context) {
            return Joulie.ACTIVE_NAME.equals(primary.getMetadata().getName())
                    && ((FromWebhookTemplate<?>) dependent).template().wanted(primary);
        }
    }

    public static final class ServiceMonitorsWanted implements Condition<ServiceMonitor, Joulie> {
        @Override
        public boolean isMet(DependentResource<ServiceMonitor, Joulie> dependent, Joulie primary, Context<Joulie> context) {
            return Joulie.ACTIVE_NAME.equals(primary.getMetadata().getName())
                    && MonitoringTemplate.monitoring(primary).serviceMonitorEnabled();
        }
    }

    public static final class RulesWanted implements Condition<PrometheusRule, Joulie> {
        @Override
        public boolean isMet(DependentResource<PrometheusRule, Joulie> dependent, Joulie primary, Context<Joulie> context) {
            return Joulie.ACTIVE_NAME.equals(primary.getMetadata().getName())
                    && MonitoringTemplate.monitoring(primary).prometheusRulesEnabled();
        }
    }

    /**
     * The optional kinds (the Prometheus Operator's, OpenShift's SCC) are dependents only where their CRD is served: it
     * exists and is not being deleted. JOSDK registers a dependent's informer when its activation condition becomes
     * true and stops it (and deletes what it made) when it becomes false. A missing CRD is looked for again at most every
     * {@code joulie.optional-crd-recheck} (the reconciler comes back that often while {@code spec.monitoring} wants a
     * missing kind), and at once when the {@code Joulie} resource's spec changed (a new generation); a Prometheus
     * Operator installed at any time is picked up. A CRD found is not looked at again until an apply of its kind says
     * the API is gone or going ({@link #forgetIfGone}: the Prometheus Operator uninstalled, a CRD deleted), so a steady
     * operator asks nothing. What was found goes into the workflow's context, keyed by the CRD's name, for the
     * {@code MonitoringReady} condition. (JOSDK's own {@link CRDPresentActivationCondition} takes a CRD it once found
     * as there for good: after its removal every reconcile failed on the apply, decision 194.) It stays the superclass,
     * every look its own: the Quarkus Operator SDK takes a dependent for optional only when its activation condition is
     * one, and leaves optional kinds out of the CSV's {@code nativeAPIs}, which OLM requires the cluster to serve.
     */
    public static class CrdPresent extends CRDPresentActivationCondition<HasMetadata, Joulie> {
        private static final Logger LOG = Logger.getLogger(CrdPresent.class);
        /** The last look at each CRD, by name: shared by every dependent of the kind (and every controller). */
        private static final Map<String, Look> LOOKS = new ConcurrentHashMap<>();
        private final Duration recheck;

        /** What a look found, when, for which generation of the primary, and whether an apply has since said it is wrong. */
        record Look(boolean present, long atNanos, Long generation, boolean stale) {
            Look(boolean present, long atNanos, Long generation) {
                this(present, atNanos, generation, false);
            }

            /** This look, to be looked at again at the next reconcile. */
            Look asStale() {
                return new Look(present, atNanos, generation, true);
            }
        }

        /** Instantiated by the Operator SDK (at build time too), hence the configuration looked up here. */
        public CrdPresent() {
            this(ConfigProvider.getConfig().getOptionalValue(RECHECK, Duration.class).orElse(Duration.ofMinutes(2)));
        }

        CrdPresent(Duration recheck) {
            super(Integer.MAX_VALUE, recheck);
            this.recheck = recheck;
        }

        @Override
        public boolean isMet(DependentResource<HasMetadata, Joulie> dependent, Joulie primary, Context<Joulie> context) {
            boolean present = present(HasMetadata.getFullResourceName(dependent.resourceType()), primary.getMetadata().getGeneration(),
                    System.nanoTime(), name -> context.getClient().resources(CustomResourceDefinition.class).withName(name).get());
            context.managedWorkflowAndDependentResourceContext().put(crdKey(dependent.resourceType()), present);
            return present;
        }

        /** Whether the CRD serves its kind, by the last look or a new one ({@code read} gets the CRD or null). */
        boolean present(String crd, Long generation, long now, Function<String, CustomResourceDefinition> read) {
            return LOOKS.compute(crd, (name, last) -> due(last, generation, now) ? new Look(served(read.apply(name)), now, generation)
                    : last).present();
        }

        /**
         * Whether to look (again): never looked, marked stale by a failed apply, or missing and either the spec changed
         * or the interval passed.
         */
        boolean due(Look last, Long generation, long now) {
            return last == null || last.stale() || !last.present()
                    && (!Objects.equals(last.generation(), generation) || now - last.atNanos() >= recheck.toNanos());
        }

        /** A CRD serves its kind while it exists and is not being deleted (then the API server refuses creates). */
        static boolean served(CustomResourceDefinition crd) {
            return crd != null && crd.getMetadata().getDeletionTimestamp() == null;
        }

        /**
         * Whether an apply of an optional kind failed because its API is gone (404: server-side apply creates, so only an
         * unserved kind is not found) or going (its CRD is being deleted). If so, its CRD is looked at again at the next
         * reconcile, which deactivates the dependent; this is logged without the API server's refusal text (an RBAC
         * refusal reads differently and stays a failure, as does any failure of a built-in kind).
         */
        static boolean forgetIfGone(Class<? extends HasMetadata> kind, Throwable e) {
            String crd = HasMetadata.getFullResourceName(kind);
            Look look = LOOKS.get(crd);
            Optional<String> why = look == null ? Optional.empty() : apiGone(e);
            // stale, not removed: a second dependent of the kind failing in the same reconcile is dropped too
            if (why.isPresent() && !look.stale() && LOOKS.replace(crd, look, look.asStale())) {
                LOG.infof("%s: the API server no longer serves this kind (its CRD %s %s); the operator stops managing it "
                        + "and looks for the CRD again", kind.getSimpleName(), crd, why.get());
            }
            return why.isPresent();
        }

        /** Why an apply failed because its kind is not served any more, if it did. */
        static Optional<String> apiGone(Throwable e) {
            for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
                if (t instanceof KubernetesClientException k) {
                    if (k.getCode() == 404) {
                        return Optional.of("is gone");
                    }
                    String message = k.getStatus() == null ? null : k.getStatus().getMessage();
                    if (k.getCode() == 403 && message != null && message.contains("custom resource definition is terminating")) {
                        return Optional.of("is being deleted");
                    }
                    return Optional.empty();
                }
            }
            return Optional.empty();
        }

        /** Forgets every look (tests that remove CRDs). */
        static void forgetAll() {
            LOOKS.clear();
        }

        static String crdKey(Class<? extends HasMetadata> kind) {
            return "crd:" + HasMetadata.getFullResourceName(kind);
        }
    }

    /** Set in the workflow's context when an optional kind's API went away during this reconcile. */
    static final String API_GONE = "api-gone";

    /** A dependent whose desired object comes from a template bean and the primary alone. */
    abstract static class FromTemplate<R extends HasMetadata, T> extends CRUDKubernetesDependentResource<R, Joulie> {
        private final BiFunction<T, Joulie, R> desired;

        FromTemplate(Class<R> type, BiFunction<T, Joulie, R> desired) {
            super(type);
            this.desired = desired;
        }

        abstract T template();

        @Override
        protected R desired(Joulie primary, Context<Joulie> context) {
            return desired.apply(template(), primary);
        }

        /** An optional kind whose API went away is not a failure: the next reconcile deactivates it (decision 194). */
        @Override
        public ReconcileResult<R> reconcile(Joulie primary, Context<Joulie> context) {
            try {
                return super.reconcile(primary, context);
            } catch (RuntimeException e) {
                if (!CrdPresent.forgetIfGone(resourceType(), e)) {
                    throw e;
                }
                context.managedWorkflowAndDependentResourceContext().put(CrdPresent.crdKey(resourceType()), false);
                context.managedWorkflowAndDependentResourceContext().put(API_GONE, true);
                return ReconcileResult.noOperation(null);
            }
        }
    }

    abstract static class FromAgentTemplate<R extends HasMetadata> extends FromTemplate<R, AgentTemplate> {
        @Inject
        AgentTemplate template;

        FromAgentTemplate(Class<R> type, BiFunction<AgentTemplate, Joulie, R> desired) {
            super(type, desired);
        }

        @Override
        AgentTemplate template() {
            return template;
        }
    }

    abstract static class FromMonitoringTemplate<R extends HasMetadata> extends FromTemplate<R, MonitoringTemplate> {
        @Inject
        MonitoringTemplate template;

        FromMonitoringTemplate(Class<R> type, BiFunction<MonitoringTemplate, Joulie, R> desired) {
            super(type, desired);
        }

        @Override
        MonitoringTemplate template() {
            return template;
        }
    }

    abstract static class FromWebhookTemplate<R extends HasMetadata> extends FromTemplate<R, WebhookTemplate> {
        @Inject
        WebhookTemplate template;

        FromWebhookTemplate(Class<R> type, BiFunction<WebhookTemplate, Joulie, R> desired) {
            super(type, desired);
        }

        @Override
        WebhookTemplate template() {
            return template;
        }
    }

    @KubernetesDependent(informer = @Informer(namespaces = Constants.WATCH_CURRENT_NAMESPACE))
    public static final class WebhookService extends FromWebhookTemplate<Service> {
        public WebhookService() {
            super(Service.class, WebhookTemplate::service);
        }
    }

    /** Cluster-scoped: registers the placement webhook for Pod creations. */
    @KubernetesDependent
    public static final class PlacementWebhook extends FromWebhookTemplate<MutatingWebhookConfiguration> {
        public PlacementWebhook() {
            super(MutatingWebhookConfiguration.class, WebhookTemplate::configuration);
        }

        @Override
        protected MutatingWebhookConfiguration desired(Joulie primary, Context<Joulie> context) {
            template().registered(getSecondaryResource(primary, context).orElse(null));
            return super.desired(primary, context);
        }
    }

    @KubernetesDependent(informer = @Informer(namespaces = Constants.WATCH_CURRENT_NAMESPACE))
    public static final class AgentDaemonSet extends FromAgentTemplate<DaemonSet> {
        public AgentDaemonSet() {
            super(DaemonSet.class, AgentTemplate::daemonSet);
        }
    }

    @KubernetesDependent(informer = @Informer(namespaces = Constants.WATCH_CURRENT_NAMESPACE))
    public static final class AgentMetricsService extends FromAgentTemplate<Service> {
        public AgentMetricsService() {
            super(Service.class, AgentTemplate::metricsService);
        }
    }

    @KubernetesDependent(informer = @Informer(namespaces = Constants.WATCH_CURRENT_NAMESPACE))
    public static final class OperatorMetricsService extends FromAgentTemplate<Service> {
        public OperatorMetricsService() {
            super(Service.class, AgentTemplate::operatorMetricsService);
        }
    }

    /** Cluster-scoped: the admission policy that keeps each agent to its own node. */
    @KubernetesDependent
    public static final class AgentAdmissionPolicy extends FromAgentTemplate<ValidatingAdmissionPolicy> {
        public AgentAdmissionPolicy() {
            super(ValidatingAdmissionPolicy.class, AgentTemplate::admissionPolicy);
        }
    }

    @KubernetesDependent
    public static final class AgentAdmissionPolicyBinding extends FromAgentTemplate<ValidatingAdmissionPolicyBinding> {
        public AgentAdmissionPolicyBinding() {
            super(ValidatingAdmissionPolicyBinding.class, AgentTemplate::admissionPolicyBinding);
        }
    }

    /** Cluster-scoped, OpenShift only: the SCC the agent's pods are admitted under (decision 111). */
    @KubernetesDependent
    public static final class AgentScc extends FromAgentTemplate<SecurityContextConstraints> {
        public AgentScc() {
            super(SecurityContextConstraints.class, AgentTemplate::scc);
        }
    }

    @KubernetesDependent(informer = @Informer(namespaces = Constants.WATCH_CURRENT_NAMESPACE,
            labelSelector = "grafana_dashboard=1,app.kubernetes.io/part-of=joulie"))
    public static final class Dashboard extends FromMonitoringTemplate<ConfigMap> {
        public Dashboard() {
            super(ConfigMap.class, MonitoringTemplate::dashboard);
        }
    }

    @KubernetesDependent(informer = @Informer(namespaces = Constants.WATCH_CURRENT_NAMESPACE))
    public static final class OperatorServiceMonitor extends FromMonitoringTemplate<ServiceMonitor> {
        public OperatorServiceMonitor() {
            super(ServiceMonitor.class, (t, j) -> t.serviceMonitor(j, AgentTemplate.OPERATOR_METRICS));
        }
    }

    @KubernetesDependent(informer = @Informer(namespaces = Constants.WATCH_CURRENT_NAMESPACE))
    public static final class AgentServiceMonitor extends FromMonitoringTemplate<ServiceMonitor> {
        public AgentServiceMonitor() {
            super(ServiceMonitor.class, (t, j) -> t.serviceMonitor(j, AgentTemplate.NAME));
        }
    }

    @KubernetesDependent(informer = @Informer(namespaces = Constants.WATCH_CURRENT_NAMESPACE))
    public static final class Rules extends FromMonitoringTemplate<PrometheusRule> {
        public Rules() {
            super(PrometheusRule.class, MonitoringTemplate::prometheusRule);
        }
    }
}
