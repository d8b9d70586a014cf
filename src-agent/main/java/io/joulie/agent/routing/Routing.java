package io.joulie.agent.routing;

import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileSpec;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.ControlType;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.CpuControl;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.Scope;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.Source;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.SourceType;

import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;

/**
 * Resolves a node's {@link Route}. Per signal family, the node-scoped TelemetryProfile of the node wins
 * when it sets that family; otherwise the cluster-scoped profile applies; otherwise the default, host.
 * Falling through per family matters because the agent itself creates a node-scoped profile (to hold the
 * status) that sets no routing. With several candidates of one scope, the first by name wins.
 */
public final class Routing {
    private Routing() {
    }

    public static Route resolve(Collection<TelemetryProfile> profiles, String node) {
        Optional<TelemetryProfile> own = first(profiles, Scope.NODE, node);
        Optional<TelemetryProfile> cluster = first(profiles, Scope.CLUSTER, null);

        ControlType control = ControlType.HOST;
        CpuControl cpu = null;
        String controlFrom = "";
        for (Optional<TelemetryProfile> candidate : java.util.List.of(own, cluster)) {
            CpuControl c = candidate.map(TelemetryProfile::getSpec).map(TelemetryProfileSpec::controls)
                    .map(TelemetryProfileSpec.Controls::cpu).orElse(null);
            if (c != null && c.type() != null) {
                control = c.type();
                cpu = c;
                controlFrom = candidate.get().getMetadata().getName();
                break;
            }
        }
        SourceType sourceType = SourceType.HOST;
        Source source = null;
        String sourceFrom = "";
        for (Optional<TelemetryProfile> candidate : java.util.List.of(own, cluster)) {
            Source s = candidate.map(TelemetryProfile::getSpec).map(TelemetryProfileSpec::sources)
                    .map(TelemetryProfileSpec.Sources::cpu).orElse(null);
            if (s != null && s.type() != null) {
                sourceType = s.type();
                source = s;
                sourceFrom = candidate.get().getMetadata().getName();
                break;
            }
        }
        return new Route(control, cpu == null ? null : cpu.http(), sourceType, source, controlFrom, sourceFrom);
    }

    /** The node's own node-scoped profile (first by name), if any. */
    public static Optional<TelemetryProfile> nodeScoped(Collection<TelemetryProfile> profiles, String node) {
        return first(profiles, Scope.NODE, node);
    }

    private static Optional<TelemetryProfile> first(Collection<TelemetryProfile> profiles, Scope scope, String node) {
        return profiles.stream().filter(p -> p.getSpec() != null && p.getSpec().target() != null
                        && p.getSpec().target().scope() == scope
                        && (scope == Scope.CLUSTER || node.equals(p.getSpec().target().nodeName())))
                .min(Comparator.comparing(p -> p.getMetadata().getName()));
    }
}
