package io.joulie.planner;

import io.joulie.api.v1alpha1.PowerState;
import io.joulie.api.v1alpha1.Profile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static io.joulie.planner.Fixtures.ecoNodes;
import static io.joulie.planner.Fixtures.node;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class EcoSelectionTest {

    /**
     * Nodes in a compact notation: {@code name:S[k]} with S = E (ActiveEco), D (DrainingPerformance), P
     * (ActivePerformance) and k performance-only pods (default 0).
     */
    static List<ManagedNode> nodes(String spec) {
        List<ManagedNode> out = new ArrayList<>();
        for (String part : spec.trim().split("\\s+")) {
            String[] f = part.split(":");
            PowerState state = switch (f[1].charAt(0)) {
                case 'E' -> PowerState.ActiveEco;
                case 'D' -> PowerState.DrainingPerformance;
                case 'P' -> PowerState.ActivePerformance;
                default -> throw new IllegalArgumentException(part);
            };
            int pods = f[1].length() > 1 ? Integer.parseInt(f[1].substring(1)) : 0;
            String[] names = IntStream.range(0, pods).mapToObj(i -> "ns/" + f[0] + "-" + i).toArray(String[]::new);
            out.add(node(f[0], state, names));
        }
        return out;
    }

    static Stream<Arguments> selections() {
        return Stream.of(
                // nodes, hp, expected eco nodes
                arguments("a:P b:P c:P d:P e:P", 3, List.of("a", "b")),             // all equal: by name
                arguments("a:P b:P c:E d:P e:E", 3, List.of("c", "e")),             // keep existing eco
                arguments("a:E b:E c:E", 1, List.of("a", "b")),                     // eco -> performance by name
                arguments("a:P1 b:P c:P d:P e:P", 3, List.of("b", "c")),            // avoid starting a drain
                arguments("a:P2 b:P1 c:P3", 1, List.of("a", "b")),                  // only pod nodes left: by name, not pod count
                arguments("a:D1 b:P c:P d:E", 2, List.of("a", "d")),                // keep an ongoing drain
                arguments("a:D2 b:P", 1, List.of("a")),                             // draining before clean performance
                arguments("a:P b:D1", 1, List.of("b")),
                arguments("a:E b:D1 c:P d:P1", 3, List.of("a")),                    // eco before draining
                arguments("a:E b:D1 c:P d:P1", 2, List.of("a", "b")),
                arguments("a:E b:D1 c:P d:P1", 1, List.of("a", "b", "c")),
                arguments("a:E b:D1 c:P d:P1", 0, List.of("a", "b", "c", "d")),    // all eco
                arguments("z:P y:P1 x:D1 w:E", 1, List.of("w", "x", "z")),          // ranking beats name order
                arguments("a:P b:P", 2, List.of()),
                arguments("a:P b:P", 5, List.of()),                                 // hp above n clamps
                arguments("a:P b:E", -3, List.of("a", "b")),                        // hp below 0 clamps
                arguments("a:D b:P", 1, List.of("a"))                               // a drained node still ranks as draining
        );
    }

    @ParameterizedTest(name = "[{index}] {0} with hp={1} -> eco {2}")
    @MethodSource("selections")
    void ecoCandidatesAreRanked(String spec, int hp, List<String> expectedEco) {
        List<ManagedNode> nodes = nodes(spec);
        var targets = EcoSelection.assign(nodes, hp);

        assertThat(targets).hasSize(nodes.size());
        assertThat(ecoNodes(targets)).containsExactlyElementsOf(expectedEco);
        assertThat(targets.values()).doesNotContainNull();
    }

    @ParameterizedTest(name = "[{index}] {0} in any input order")
    @MethodSource("selections")
    void inputOrderDoesNotMatter(String spec, int hp, List<String> expectedEco) {
        List<ManagedNode> nodes = new ArrayList<>(nodes(spec));
        Collections.reverse(nodes);
        assertThat(ecoNodes(EcoSelection.assign(nodes, hp))).containsExactlyElementsOf(expectedEco);
        Collections.shuffle(nodes, new java.util.Random(spec.hashCode()));
        assertThat(ecoNodes(EcoSelection.assign(nodes, hp))).containsExactlyElementsOf(expectedEco);
    }

    @ParameterizedTest(name = "steady: {0} at hp={1}")
    @CsvSource({
            "'a:E b:E c:P d:P', 2",
            "'a:E b:P1 c:P2 d:E e:P', 3",
            "'a:P3 b:P1', 2",
            "'a:E b:E', 0",
            "'a:E b:P c:P d:P1 e:P1 f:E g:P', 5",
    })
    void aClusterAlreadyAtTheTargetCountKeepsEveryNodeWhereItIs(String spec, int hp) {
        List<ManagedNode> nodes = nodes(spec);
        var targets = EcoSelection.assign(nodes, hp);

        for (ManagedNode n : nodes) {
            assertThat(targets.get(n.name())).as(n.name()).isEqualTo(n.state().profile() == Profile.ECO ? Profile.ECO : Profile.PERFORMANCE);
        }
    }

    @ParameterizedTest(name = "{0}: shrinking performance from {1} to {2} turns only {3} to eco")
    @CsvSource({
            // a pure one-step change: only the minimal number of nodes move
            "'a:E b:P c:P d:P', 3, 2, b",
            "'a:E b:P1 c:P d:P', 3, 2, c",
            "'a:E b:P1 c:P1 d:P', 3, 1, b d",   // d has no pods; then b before c by name
    })
    void shrinkingMovesTheFewestAndCheapestNodes(String spec, int hpBefore, int hpAfter, String newlyEco) {
        List<ManagedNode> nodes = nodes(spec);
        assertThat(EcoSelection.assign(nodes, hpBefore).values().stream().filter(p -> p == Profile.PERFORMANCE).count())
                .isEqualTo(hpBefore);

        var after = EcoSelection.assign(nodes, hpAfter);
        List<String> changed = nodes.stream()
                .filter(n -> n.state().profile() != after.get(n.name()))
                .map(ManagedNode::name).sorted().toList();
        assertThat(changed).containsExactlyElementsOf(Arrays.asList(newlyEco.split(" ")));
    }

    @Test
    void rankOrder() {
        assertThat(EcoSelection.rank(node("x", PowerState.ActiveEco)))
                .isLessThan(EcoSelection.rank(node("x", PowerState.DrainingPerformance, "ns/p")));
        assertThat(EcoSelection.rank(node("x", PowerState.DrainingPerformance, "ns/p")))
                .isLessThan(EcoSelection.rank(node("x", PowerState.ActivePerformance)));
        assertThat(EcoSelection.rank(node("x", PowerState.ActivePerformance)))
                .isLessThan(EcoSelection.rank(node("x", PowerState.ActivePerformance, "ns/p")));
        // pods on an eco node do not demote it as a candidate
        assertThat(EcoSelection.rank(node("x", PowerState.ActiveEco, "ns/p")))
                .isEqualTo(EcoSelection.rank(node("x", PowerState.ActiveEco)));
    }

    @ParameterizedTest(name = "roundHalfUp({0}, {1}) = {2}")
    @CsvSource({
            "5, 0.5, 3",
            "5, 0.6, 3",
            "5, 0.7, 4",   // 3.5
            "3, 0.5, 2",
            "10, 0.15, 2", // 0.15 is 0.1499999... in binary; the decimal value is used
            "10, 0.35, 4",
            "10, 0.45, 5",
            "100, 0.005, 1",
            "0, 0.9, 0",
            "7, 0, 0",
            "7, 1, 7",
    })
    void roundHalfUp(int n, double frac, int expected) {
        assertThat(EcoSelection.roundHalfUp(n, frac)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "clampFraction({0}) = {1}")
    @CsvSource({"0.3, 0.3", "-0.2, 0", "1.5, 1", "NaN, 0", "Infinity, 1", "-Infinity, 0", "0, 0", "1, 1"})
    void clampFraction(double in, double out) {
        assertThat(EcoSelection.clampFraction(in)).isEqualTo(out);
    }
}
