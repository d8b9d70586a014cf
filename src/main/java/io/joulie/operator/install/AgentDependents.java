package io.joulie.operator.install;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Constants;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.Matcher.Result;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;
import io.joulie.api.v1alpha1.Joulie;
import io.quarkus.arc.Arc;

import java.util.function.BiFunction;

/**
 * The objects a {@code Joulie} resource owns, one JOSDK dependent resource each. They live in the
 * operator's namespace (the admission policy and its binding are cluster-scoped), carry an owner reference to the
 * (cluster-scoped) {@code Joulie}, and are only reconciled for the active one (named {@code joulie}).
 */
final class AgentDependents {
    private AgentDependents() {
    }

    static AgentTemplate template() {
        return Arc.container().instance(AgentTemplate.class).get();
    }

    /** Only the {@code Joulie} named {@code joulie} gets an agent. */
    public static final class Active implements Condition<Object, Joulie> {
        @Override
        public boolean isMet(DependentResource<Object, Joulie> dependent, Joulie primary,
                             Context<Joulie> context) {
            return Joulie.ACTIVE_NAME.equals(primary.getMetadata().getName());
        }
    }

    /**
     * A dependent whose desired object comes from the {@link AgentTemplate} and which is matched by
     * {@link DesiredSubset} (decision 33).
     */
    abstract static class FromTemplate<R extends HasMetadata> extends CRUDKubernetesDependentResource<R, Joulie> {
        private final BiFunction<AgentTemplate, Joulie, R> desired;

        FromTemplate(Class<R> type, BiFunction<AgentTemplate, Joulie, R> desired) {
            super(type);
            this.desired = desired;
        }

        @Override
        protected R desired(Joulie primary, Context<Joulie> context) {
            return desired.apply(template(), primary);
        }

        @Override
        public Result<R> match(R actual, Joulie primary, Context<Joulie> context) {
            return DesiredSubset.match(desired(primary, context), actual);
        }
    }

    @KubernetesDependent(informer = @Informer(namespaces = Constants.WATCH_CURRENT_NAMESPACE))
    public static final class AgentDaemonSet extends FromTemplate<DaemonSet> {
        public AgentDaemonSet() {
            super(DaemonSet.class, AgentTemplate::daemonSet);
        }
    }

    @KubernetesDependent(informer = @Informer(namespaces = Constants.WATCH_CURRENT_NAMESPACE))
    public static final class AgentMetricsService extends FromTemplate<Service> {
        public AgentMetricsService() {
            super(Service.class, AgentTemplate::metricsService);
        }
    }

    @KubernetesDependent(informer = @Informer(namespaces = Constants.WATCH_CURRENT_NAMESPACE))
    public static final class OperatorMetricsService extends FromTemplate<Service> {
        public OperatorMetricsService() {
            super(Service.class, AgentTemplate::operatorMetricsService);
        }
    }

    /** Cluster-scoped: the admission policy that keeps each agent to its own node. */
    @KubernetesDependent
    public static final class AgentAdmissionPolicy extends FromTemplate<ValidatingAdmissionPolicy> {
        public AgentAdmissionPolicy() {
            super(ValidatingAdmissionPolicy.class, AgentTemplate::admissionPolicy);
        }
    }

    @KubernetesDependent
    public static final class AgentAdmissionPolicyBinding extends FromTemplate<ValidatingAdmissionPolicyBinding> {
        public AgentAdmissionPolicyBinding() {
            super(ValidatingAdmissionPolicyBinding.class, AgentTemplate::admissionPolicyBinding);
        }
    }
}
