package io.joulie.operator.install;

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
import io.joulie.api.v1alpha1.JoulieInstallation;
import io.quarkus.arc.Arc;

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
    public static final class Active implements Condition<Object, JoulieInstallation> {
        @Override
        public boolean isMet(DependentResource<Object, JoulieInstallation> dependent, JoulieInstallation primary,
                             Context<JoulieInstallation> context) {
            return JoulieInstallation.ACTIVE_NAME.equals(primary.getMetadata().getName());
        }
    }

    @KubernetesDependent(informer = @Informer(namespaces = Constants.WATCH_CURRENT_NAMESPACE))
    public static final class AgentDaemonSet extends CRUDKubernetesDependentResource<DaemonSet, JoulieInstallation> {
        public AgentDaemonSet() {
            super(DaemonSet.class);
        }

        @Override
        protected DaemonSet desired(JoulieInstallation primary, Context<JoulieInstallation> context) {
            return template().daemonSet(primary);
        }

        @Override
        public Result<DaemonSet> match(DaemonSet actual, JoulieInstallation primary, Context<JoulieInstallation> context) {
            return DesiredSubset.match(desired(primary, context), actual);
        }
    }

    @KubernetesDependent(informer = @Informer(namespaces = Constants.WATCH_CURRENT_NAMESPACE))
    public static final class AgentMetricsService extends CRUDKubernetesDependentResource<Service, JoulieInstallation> {
        public AgentMetricsService() {
            super(Service.class);
        }

        @Override
        protected Service desired(JoulieInstallation primary, Context<JoulieInstallation> context) {
            return template().metricsService(primary);
        }

        @Override
        public Result<Service> match(Service actual, JoulieInstallation primary, Context<JoulieInstallation> context) {
            return DesiredSubset.match(desired(primary, context), actual);
        }
    }

    /** Cluster-scoped: the admission policy that keeps each agent to its own node. */
    @KubernetesDependent
    public static final class AgentAdmissionPolicy
            extends CRUDKubernetesDependentResource<ValidatingAdmissionPolicy, JoulieInstallation> {
        public AgentAdmissionPolicy() {
            super(ValidatingAdmissionPolicy.class);
        }

        @Override
        protected ValidatingAdmissionPolicy desired(JoulieInstallation primary, Context<JoulieInstallation> context) {
            return template().admissionPolicy(primary);
        }

        @Override
        public Result<ValidatingAdmissionPolicy> match(ValidatingAdmissionPolicy actual, JoulieInstallation primary,
                                                       Context<JoulieInstallation> context) {
            return DesiredSubset.match(desired(primary, context), actual);
        }
    }

    @KubernetesDependent
    public static final class AgentAdmissionPolicyBinding
            extends CRUDKubernetesDependentResource<ValidatingAdmissionPolicyBinding, JoulieInstallation> {
        public AgentAdmissionPolicyBinding() {
            super(ValidatingAdmissionPolicyBinding.class);
        }

        @Override
        protected ValidatingAdmissionPolicyBinding desired(JoulieInstallation primary, Context<JoulieInstallation> context) {
            return template().admissionPolicyBinding(primary);
        }

        @Override
        public Result<ValidatingAdmissionPolicyBinding> match(ValidatingAdmissionPolicyBinding actual, JoulieInstallation primary,
                                                              Context<JoulieInstallation> context) {
            return DesiredSubset.match(desired(primary, context), actual);
        }
    }

    @KubernetesDependent(informer = @Informer(namespaces = Constants.WATCH_CURRENT_NAMESPACE))
    public static final class OperatorMetricsService extends CRUDKubernetesDependentResource<Service, JoulieInstallation> {
        public OperatorMetricsService() {
            super(Service.class);
        }

        @Override
        protected Service desired(JoulieInstallation primary, Context<JoulieInstallation> context) {
            return template().operatorMetricsService(primary);
        }

        @Override
        public Result<Service> match(Service actual, JoulieInstallation primary, Context<JoulieInstallation> context) {
            return DesiredSubset.match(desired(primary, context), actual);
        }
    }
}
