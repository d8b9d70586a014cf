package io.joulie.agent.routing;

import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileSpec;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.ControlType;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.CpuControl;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.GpuControl;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.Scope;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.Source;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.SourceType;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Resolves a node's {@link Route}. Per signal family (CPU control, CPU telemetry, GPU control, GPU telemetry), the
 * node-scoped TelemetryProfile of the node wins when it sets that family; otherwise the cluster-scoped profile applies;
 * otherwise the default, host.
 * Falling through per family matters because the agent itself creates a node-scoped profile (to hold the
 * status) that sets no routing. With several candidates of one scope, the first by name wins.
 */
public final class Routing {
    private Routing() {
    }

    public static Route resolve(Collection<TelemetryProfile> profiles, String node) {
        List<Optional<TelemetryProfile>> candidates = List.of(first(profiles, Scope.NODE, node), first(profiles, Scope.CLUSTER, null));
        Optional<Found<CpuControl>> cpu = firstSet(candidates, spec -> spec.controls() == null ? null : spec.controls().cpu(),
                c -> c.type() != null);
        Optional<Found<Source>> source = firstSet(candidates, spec -> spec.sources() == null ? null : spec.sources().cpu(),
                s -> s.type() != null);
        Optional<Found<GpuControl>> gpu = firstSet(candidates, spec -> spec.controls() == null ? null : spec.controls().gpu(),
                c -> c.type() != null);
        Optional<Found<Source>> gpuSource = firstSet(candidates, spec -> spec.sources() == null ? null : spec.sources().gpu(),
                s -> s.type() != null);
        return new Route(cpu.map(f -> f.settings().type()).orElse(ControlType.HOST), cpu.map(f -> f.settings().http()).orElse(null),
                source.map(f -> f.settings().type()).orElse(SourceType.HOST), source.map(Found::settings).orElse(null),
                cpu.map(Found::from).orElse(""), source.map(Found::from).orElse(""),
                new Route.GpuRoute(gpu.map(f -> f.settings().type()).orElse(ControlType.HOST), gpu.map(f -> f.settings().http()).orElse(null),
                        gpuSource.map(f -> f.settings().type()).orElse(SourceType.HOST), gpuSource.map(Found::settings).orElse(null)));
    }

    /** A family's settings and the name of the profile they came from. */
    private record Found<T>(T settings, String from) {
    }

    /** The first candidate whose {@code family} settings are present and {@code set}. */
    private static <T> Optional<Found<T>> firstSet(List<Optional<TelemetryProfile>> candidates,
                                                   Function<TelemetryProfileSpec, T> family, Predicate<T> set) {
        for (Optional<TelemetryProfile> candidate : candidates) {
            T settings = candidate.map(TelemetryProfile::getSpec).map(family).orElse(null);
            if (settings != null && set.test(settings)) {
                return Optional.of(new Found<>(settings, candidate.get().getMetadata().getName()));
            }
        }
        return Optional.empty();
    }

    private static Optional<TelemetryProfile> first(Collection<TelemetryProfile> profiles, Scope scope, String node) {
        return profiles.stream().filter(p -> p.getSpec() != null && p.getSpec().target() != null
                        && p.getSpec().target().scope() == scope
                        && (scope == Scope.CLUSTER || node.equals(p.getSpec().target().nodeName())))
                .min(Comparator.comparing(p -> p.getMetadata().getName()));
    }
}
