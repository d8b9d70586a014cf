package io.joulie.operator.install;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.openshift.api.model.SecurityContextConstraints;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Constants;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.javaoperatorsdk.operator.processing.dependent.workflow.CRDPresentActivationCondition;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;
import io.joulie.api.v1alpha1.Joulie;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.ConfigProvider;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

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
     * The optional kinds (the Prometheus Operator's, OpenShift's SCC) are dependents only where their CRD is installed:
     * JOSDK's {@link CRDPresentActivationCondition}, which registers the dependent's informer once the CRD is found.
     * JOSDK's default gives up after 10 looks 10 s apart; a Prometheus Operator installed later than that would never
     * be picked up, so this one keeps looking while the CRD is missing: at most every {@code joulie.optional-crd-recheck}
     * (the reconciler comes back that often while {@code spec.monitoring} wants a missing kind), and at once when the
     * {@code Joulie} resource's spec changed (a new generation). What it found goes into the workflow's context, keyed
     * by the CRD's name, for the {@code MonitoringReady} condition.
     */
    public static class CrdPresent extends CRDPresentActivationCondition<HasMetadata, Joulie> {
        /** The primary's generation at the last look, by CRD name. */
        private final Map<String, Long> generations = new ConcurrentHashMap<>();
        /** Whether the primary's spec changed since the last look for the CRD being looked at (the calling thread's). */
        private final ThreadLocal<Boolean> specChanged = ThreadLocal.withInitial(() -> false);

        /** Instantiated by the Operator SDK (at build time too), hence the configuration looked up here. */
        public CrdPresent() {
            super(Integer.MAX_VALUE, ConfigProvider.getConfig().getOptionalValue(RECHECK, Duration.class).orElse(Duration.ofMinutes(2)));
        }

        @Override
        public boolean isMet(DependentResource<HasMetadata, Joulie> dependent, Joulie primary, Context<Joulie> context) {
            String crd = HasMetadata.getFullResourceName(dependent.resourceType());
            Long generation = primary.getMetadata().getGeneration();
            specChanged.set(!Objects.equals(generations.put(crd, generation), generation));
            boolean present;
            try {
                present = super.isMet(dependent, primary, context);
            } finally {
                specChanged.remove();
            }
            context.managedWorkflowAndDependentResourceContext().put(crdKey(dependent.resourceType()), present);
            return present;
        }

        @Override
        protected boolean shouldCheckStateNow(CRDCheckState state) {
            if (state.isCrdPresent() != null && !state.isCrdPresent() && specChanged.get()) {
                return true;
            }
            return super.shouldCheckStateNow(state);
        }

        static String crdKey(Class<? extends HasMetadata> kind) {
            return "crd:" + HasMetadata.getFullResourceName(kind);
        }
    }

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
