package io.joulie.sim;

import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SimConfigTest {
    @Test
    void withoutTypesEveryNodeIsTheModelOfTheNodeParameters() {
        SimConfig c = SimConfig.of(Map.of("node.cores", "8", "node.idleWatts", "70"));
        assertThat(c.nodeTypes()).singleElement().satisfies(t -> {
            assertThat(t.name()).isEqualTo(NodeCatalog.MODEL);
            assertThat(t.model().cores()).isEqualTo(8);
            assertThat(t.model().idleWatts()).isEqualTo(70);
        });
        assertThat(c.typeOfEachNode()).hasSize(5).containsOnly(0);
    }

    @Test
    void typesAreInterleavedInProportionToTheirShares() {
        SimConfig base = SimConfig.defaults();
        NodeType a = base.nodeTypes().getFirst();
        NodeType b = new NodeType("other", a.model());
        SimConfig c = new SimConfig(List.of(a, b), List.of(0.75, 0.25), base.workload(), 8, base.stepSeconds(),
                base.tickSeconds(), base.maxSeconds(), base.planner(), base.optimizerEvaluations(), base.maxPerformanceSlowdown());
        List<Integer> types = c.typeOfEachNode();
        assertThat(types).containsExactly(0, 0, 1, 0, 0, 0, 1, 0);
        assertThat(Collections.frequency(types.subList(0, 4), 1)).as("every prefix mixes as the whole").isEqualTo(1);
    }

    @Test
    void badTypeListsAreNamed() {
        assertThatThrownBy(() -> SimConfig.of(Map.of("cluster.types", "cray-1:1"))).hasMessageContaining("unknown node type 'cray-1'")
                .hasMessageContaining("known: model");
        assertThatThrownBy(() -> SimConfig.of(Map.of("cluster.types", "model"))).hasMessageContaining("expected name:share");
        assertThatThrownBy(() -> SimConfig.of(Map.of("cluster.types", "model:x"))).hasMessageContaining("share of model must be a number");
        assertThatThrownBy(() -> SimConfig.of(Map.of("cluster.types", "model:0"))).hasMessageContaining("must be > 0");
        assertThatThrownBy(() -> SimConfig.of(Map.of("cluster.types", "model:1,model:1"))).hasMessageContaining("names a type twice");
        assertThat(SimConfig.of(Map.of("cluster.types", "model:3")).typeShares()).containsExactly(1.0);
    }
}
