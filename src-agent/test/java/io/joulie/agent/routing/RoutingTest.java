package io.joulie.agent.routing;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileSpec;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.ControlType;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.Controls;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.CpuControl;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.CpuHttpControl;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.GpuControl;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.GpuHttpControl;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.HttpEndpoint;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.Scope;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.Source;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.SourceType;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.Sources;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.Target;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RoutingTest {
    static TelemetryProfile tp(String name, Scope scope, String node, ControlType control, SourceType source) {
        TelemetryProfile tp = new TelemetryProfile();
        tp.setMetadata(new ObjectMetaBuilder().withName(name).build());
        tp.setSpec(new TelemetryProfileSpec(new Target(scope, node),
                source == null ? null : new Sources(new Source(source, source == SourceType.HTTP
                        ? new HttpEndpoint("http://t/{node}", null) : null, null), null, null, null),
                control == null ? null : new Controls(new CpuControl(control, control == ControlType.HTTP
                        ? new CpuHttpControl("http://c/" + name, 3, null) : null), null)));
        return tp;
    }

    @Test
    void withoutProfilesTheHostIsUsedForControlAndTelemetry() {
        Route r = Routing.resolve(List.of(), "n1");
        assertThat(r.cpuControl()).isEqualTo(ControlType.HOST);
        assertThat(r.cpuSource()).isEqualTo(SourceType.HOST);
        assertThat(r.controlFrom()).isEmpty();
    }

    @Test
    void aClusterScopedProfileIsTheDefaultForEveryNode() {
        Route r = Routing.resolve(List.of(tp("all", Scope.CLUSTER, null, ControlType.HTTP, SourceType.HTTP)), "n1");
        assertThat(r.cpuControl()).isEqualTo(ControlType.HTTP);
        assertThat(r.cpuHttp().endpoint()).isEqualTo("http://c/all");
        assertThat(r.cpuSource()).isEqualTo(SourceType.HTTP);
        assertThat(r.controlFrom()).isEqualTo("all");
    }

    @Test
    void theNodesOwnProfileBeatsTheClusterScopedOneAndOtherNodesProfilesAreIgnored() {
        List<TelemetryProfile> all = List.of(
                tp("all", Scope.CLUSTER, null, ControlType.HTTP, SourceType.HTTP),
                tp("mine", Scope.NODE, "n1", ControlType.NONE, SourceType.NONE),
                tp("other", Scope.NODE, "n2", ControlType.HOST, SourceType.HOST));
        Route r = Routing.resolve(all, "n1");
        assertThat(r.cpuControl()).isEqualTo(ControlType.NONE);
        assertThat(r.cpuSource()).isEqualTo(SourceType.NONE);
        assertThat(r.controlFrom()).isEqualTo("mine");
        assertThat(Routing.resolve(all, "n2").cpuControl()).isEqualTo(ControlType.HOST);
        assertThat(Routing.resolve(all, "n3").cpuControl()).isEqualTo(ControlType.HTTP);
    }

    @Test
    void aNodeProfileThatSetsNoRoutingFallsThroughToTheClusterProfilePerFamily() {
        // a node-scoped profile written by hand without routing: scope node, no controls, no sources
        List<TelemetryProfile> all = List.of(tp("node-n1", Scope.NODE, "n1", null, null),
                tp("all", Scope.CLUSTER, null, ControlType.HTTP, null));
        Route r = Routing.resolve(all, "n1");
        assertThat(r.cpuControl()).isEqualTo(ControlType.HTTP);
        assertThat(r.cpuSource()).isEqualTo(SourceType.HOST);
    }

    @Test
    void theGpuFamiliesFallThroughOnTheirOwnAndDefaultToTheHost() {
        assertThat(Routing.resolve(List.of(), "n1").gpu()).isEqualTo(Route.GpuRoute.DEFAULT);
        TelemetryProfile cluster = new TelemetryProfile();
        cluster.setMetadata(new ObjectMetaBuilder().withName("sim").build());
        cluster.setSpec(new TelemetryProfileSpec(new Target(Scope.CLUSTER, null),
                new Sources(null, new Source(SourceType.HTTP, new HttpEndpoint("http://t/{node}", null), null), null, null),
                new Controls(null, new GpuControl(ControlType.HTTP, new GpuHttpControl("http://g/{node}", 4, null)))));
        List<TelemetryProfile> all = List.of(tp("mine", Scope.NODE, "n1", ControlType.NONE, null), cluster);
        Route r = Routing.resolve(all, "n1");
        assertThat(r.cpuControl()).isEqualTo(ControlType.NONE);
        assertThat(r.gpu().control()).isEqualTo(ControlType.HTTP);
        assertThat(r.gpu().http().endpoint()).isEqualTo("http://g/{node}");
        assertThat(r.gpu().source()).isEqualTo(SourceType.HTTP);
        assertThat(r.gpu().sourceSpec().http().endpoint()).isEqualTo("http://t/{node}");
    }
}
