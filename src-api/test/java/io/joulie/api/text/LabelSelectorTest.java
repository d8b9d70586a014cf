package io.joulie.api.text;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class LabelSelectorTest {
    private static final Map<String, String> WORKER = Map.of("role", "worker", "zone", "a", "joulie.io/managed", "true");
    private static final Map<String, String> GPU = Map.of("role", "gpu", "zone", "b");
    private static final Map<String, String> BARE = Map.of();

    static Stream<Arguments> selectors() {
        return Stream.of(
                // selector, matches WORKER, matches GPU, matches BARE
                arguments("", true, true, true),
                arguments("   ", true, true, true),
                arguments("role=worker", true, false, false),
                arguments("role==worker", true, false, false),
                arguments("role = worker", true, false, false),
                arguments("role!=worker", false, true, true),         // a missing key satisfies !=
                arguments("role", true, true, false),
                arguments("joulie.io/managed", true, false, false),
                arguments("!joulie.io/managed", false, true, true),
                arguments("joulie.io/managed=true", true, false, false),
                arguments("role in (worker,gpu)", true, true, false),
                arguments("role in (worker, gpu)", true, true, false),
                arguments("role in(gpu)", false, true, false),
                arguments("role notin (gpu)", true, false, true),      // a missing key satisfies notin
                arguments("role notin (gpu, worker)", false, false, true),
                arguments("role=worker,zone=a", true, false, false),
                arguments("role=worker, zone=b", false, false, false),
                arguments("role in (worker,gpu),zone=b", false, true, false),
                arguments("zone in (a,b), !joulie.io/managed", false, true, false),
                arguments("zone, role!=gpu", true, false, false),
                arguments("role=", false, false, false),                // empty value: the key must be there and empty
                arguments("role!=", true, true, true),
                arguments("ROLE=worker", false, false, false),          // keys are case sensitive
                arguments("role=Worker", false, false, false)           // values too
        );
    }

    @ParameterizedTest(name = "[{index}] \"{0}\"")
    @MethodSource("selectors")
    void matches(String selector, boolean worker, boolean gpu, boolean bare) {
        LabelSelector s = LabelSelector.parse(selector);

        assertThat(s.test(WORKER)).as("worker").isEqualTo(worker);
        assertThat(s.test(GPU)).as("gpu").isEqualTo(gpu);
        assertThat(s.test(BARE)).as("no labels").isEqualTo(bare);
    }

    @Test
    void emptyValueMatchesAnEmptyLabel() {
        assertThat(LabelSelector.parse("role=").test(Map.of("role", ""))).isTrue();
        assertThat(LabelSelector.parse("role in (,x)").test(Map.of("role", ""))).isTrue();
    }

    @ParameterizedTest
    @NullSource
    void nullMeansEmpty(String text) {
        LabelSelector s = LabelSelector.parse(text);

        assertThat(s.test(WORKER)).isTrue();
        assertThat(s).hasToString("");
    }

    @Test
    void nullLabelsAreNoLabels() {
        assertThat(LabelSelector.parse("!role").test(null)).isTrue();
        assertThat(LabelSelector.parse("role").test(null)).isFalse();
    }

    @Test
    void toStringIsTheTrimmedText() {
        assertThat(LabelSelector.parse("  role in (a,b), zone ")).hasToString("role in (a,b), zone");
    }

    @ParameterizedTest(name = "rejects \"{0}\"")
    @ValueSource(strings = {
            "role in (a,b",        // unbalanced
            "role in a,b)",
            ",",
            "role=worker,",        // trailing comma: empty requirement
            ",role=worker",
            "role=worker,,zone=a",
            "role=a=b",            // '=' in a value
            "=worker",
            "!=worker",
            "role=wor ker",
            "ro le=worker",
            "role=-worker",        // values start and end alphanumeric
            "role=worker-",
            "-role",
            "role in (a b)",
            "role in (a,-b)",
            "example.com/",
            "Example.com/role=x",  // prefix must be lower case
            "role===x",
            "!",
            "!role=x",
            "role in ((a))",
    })
    void rejects(String text) {
        assertThatIllegalArgumentException().isThrownBy(() -> LabelSelector.parse(text));
    }

    @Test
    void requirementsAreTheStructuredFormOfEveryOperator() {
        assertThat(LabelSelector.parse("a=1, b==2, c!=3, d, !e, f in (x,y,x), g notin (z)").requirements()).containsExactly(
                new LabelSelector.Requirement("a", LabelSelector.Operator.In, List.of("1")),
                new LabelSelector.Requirement("b", LabelSelector.Operator.In, List.of("2")),
                new LabelSelector.Requirement("c", LabelSelector.Operator.NotIn, List.of("3")),
                new LabelSelector.Requirement("d", LabelSelector.Operator.Exists, List.of()),
                new LabelSelector.Requirement("e", LabelSelector.Operator.DoesNotExist, List.of()),
                new LabelSelector.Requirement("f", LabelSelector.Operator.In, List.of("x", "y")),
                new LabelSelector.Requirement("g", LabelSelector.Operator.NotIn, List.of("z")));
        assertThat(LabelSelector.parse("").requirements()).isEmpty();
    }
}
