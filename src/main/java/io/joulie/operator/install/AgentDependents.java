package io.joulie.operator.install;

import io.fabric8.kubernetes.api.model.Service;
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

/**
 * The objects a {@code Joulie} resource owns, one JOSDK dependent resource each. They live in the
 * operator's namespace, carry an owner reference to the (cluster-scoped) {@code Joulie}, and are only
 * reconciled for the active one (named {@code joulie}).
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

    @KubernetesDependent(informer = @Informer(namespaces = Constants.WATCH_CURRENT_NAMESPACE))
    public static final class AgentDaemonSet extends CRUDKubernetesDependentResource<DaemonSet, Joulie> {
        public AgentDaemonSet() {
            super(DaemonSet.class);
        }

        @Override
        protected DaemonSet desired(Joulie primary, Context<Joulie> context) {
            return template().daemonSet(primary);
        }

        @Override
        public Result<DaemonSet> match(DaemonSet actual, Joulie primary, Context<Joulie> context) {
            return DesiredSubset.match(desired(primary, context), actual);
        }
    }

    @KubernetesDependent(informer = @Informer(namespaces = Constants.WATCH_CURRENT_NAMESPACE))
    public static final class AgentMetricsService extends CRUDKubernetesDependentResource<Service, Joulie> {
        public AgentMetricsService() {
            super(Service.class);
        }

        @Override
        protected Service desired(Joulie primary, Context<Joulie> context) {
            return template().metricsService(primary);
        }

        @Override
        public Result<Service> match(Service actual, Joulie primary, Context<Joulie> context) {
            return DesiredSubset.match(desired(primary, context), actual);
        }
    }

    @KubernetesDependent(informer = @Informer(namespaces = Constants.WATCH_CURRENT_NAMESPACE))
    public static final class OperatorMetricsService extends CRUDKubernetesDependentResource<Service, Joulie> {
        public OperatorMetricsService() {
            super(Service.class);
        }

        @Override
        protected Service desired(Joulie primary, Context<Joulie> context) {
            return template().operatorMetricsService(primary);
        }

        @Override
        public Result<Service> match(Service actual, Joulie primary, Context<Joulie> context) {
            return DesiredSubset.match(desired(primary, context), actual);
        }
    }
}
