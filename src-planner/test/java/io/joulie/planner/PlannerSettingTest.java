package io.joulie.planner;

import io.joulie.api.text.Problems;
import io.joulie.api.v1alpha1.NodePowerProfileSpec.CpuPower;
import io.joulie.api.v1alpha1.NodePowerProfileSpec.GpuPower;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

import static org.assertj.core.api.Assertions.assertThat;

/** The settings table: its names agree with each other, and what it derives reads back to what it was given. */
class PlannerSettingTest {
    static final PlannerSettings OTHER = PlannerSettings.defaults().toBuilder().policyType(PolicyType.QUEUE_AWARE_V1)
            .staticHpFrac(0.25).queueHpBaseFrac(0.4).queueHpMin(2).queueHpMax(8).queuePerfPerHpNode(4)
            .performanceCapWatts(OptionalDouble.of(450.5)).performanceCapPercent(100).ecoCapWatts(OptionalDouble.empty())
            .ecoCapPercent(55).gpuPerformanceCapWattsPerGpu(OptionalDouble.of(600)).gpuPerformanceCapPercent(100)
            .gpuEcoCapWattsPerGpu(OptionalDouble.empty()).gpuEcoCapPercent(45).escalation(Escalation.EVICT).downgradeTimeout(Duration.ofMinutes(90))
            .reconcileInterval(Duration.ofSeconds(15)).settleTime(Duration.ofMillis(2500))
            .capConfirmationTimeout(Duration.ofMinutes(3)).maxTransitionsPerTick(7).maxEvictionsPerTick(2).demandHeadroomFrac(0.35)
            .ecoCapWattsByType(Map.of("dell-r940", 407.5, "dell-r640", 260.0)).build();

    @Test
    void everySettingHasItsOwnNamesAndTheVariableIsThePropertyInCapitals() {
        var envs = new HashSet<String>();
        var fields = new HashSet<String>();
        for (PlannerSetting<?> s : PlannerSetting.ALL) {
            if (!s.inEnvironment()) {
                assertThat(s.property()).isNull();
                assertThat(fields.add(s.specField())).as("%s once", s.specField()).isTrue();
                continue;
            }
            assertThat(s.property()).startsWith("joulie.");
            assertThat(s.env()).isEqualTo(s.property().substring("joulie.".length()).replace('-', '_').toUpperCase(Locale.ROOT));
            assertThat(envs.add(s.env())).as("%s once", s.env()).isTrue();
            assertThat(fields.add(s.specField())).as("%s once", s.specField()).isTrue();
            assertThat(s.meaning()).endsWith("(spec.policy." + s.specField() + ")");
        }
        assertThat(PlannerSetting.ALL).hasSize(PlannerSettings.class.getRecordComponents().length);
    }

    @Test
    void aSettingOfSpecPolicyOnlyHasNoVariableAndIsNeverReadFromTheEnvironment() {
        PlannerSetting<Double> spec = PlannerSetting.spec("staticHpFrac", SettingKind.FRACTION, "0.25", "a share",
                PlannerSettings::staticHpFrac, PlannerSettings.Builder::staticHpFrac);
        PlannerSettings.Builder b = PlannerSettings.defaults().toBuilder();
        Problems problems = new Problems();

        spec.readDefault(problems, b);

        assertThat(spec.inEnvironment()).isFalse();
        assertThat(spec.env()).isNull();
        assertThat(spec.readsTextFrom(PlannerSetting.Source.ENVIRONMENT)).as("keeps its default there").isFalse();
        assertThat(spec.readsTextFrom(PlannerSetting.Source.SIMULATOR)).as("no simulator parameter").isFalse();
        assertThat(spec.meaning()).isEqualTo("a share (spec.policy.staticHpFrac)");
        assertThat(b.build().staticHpFrac()).isEqualTo(0.25);
        assertThat(problems.lines()).isEmpty();
        assertThat(PlannerSetting.STATIC_HP_FRAC.readsTextFrom(PlannerSetting.Source.ENVIRONMENT)).isTrue();
    }

    @Test
    void aBadDefaultNamesTheField() {
        PlannerSetting<Double> spec = PlannerSetting.spec("staticHpFrac", SettingKind.FRACTION, "half", "a share",
                PlannerSettings::staticHpFrac, PlannerSettings.Builder::staticHpFrac);
        Problems problems = new Problems();

        spec.readDefault(problems, PlannerSettings.defaults().toBuilder());

        assertThat(problems.lines()).containsExactly("spec.policy.staticHpFrac default = 'half': is not a number");
    }

    @Test
    void theDefaultsAreTheDocumentedOnes() {
        assertThat(PlannerSettings.defaults()).isEqualTo(new PlannerSettings.Builder().policyType(PolicyType.STATIC_PARTITION)
                .staticHpFrac(0.5).queueHpBaseFrac(0.6).queueHpMin(1).queueHpMax(1_000_000).queuePerfPerHpNode(10)
                .performanceCapWatts(OptionalDouble.empty()).performanceCapPercent(100).ecoCapWatts(OptionalDouble.empty()).ecoCapPercent(60)
                .gpuPerformanceCapWattsPerGpu(OptionalDouble.empty()).gpuPerformanceCapPercent(100)
                .gpuEcoCapWattsPerGpu(OptionalDouble.empty()).gpuEcoCapPercent(60).escalation(Escalation.HOLD).downgradeTimeout(Duration.ofMinutes(30))
                .reconcileInterval(Duration.ofMinutes(1)).settleTime(Duration.ofSeconds(5))
                .capConfirmationTimeout(Duration.ofMinutes(5)).maxTransitionsPerTick(100).maxEvictionsPerTick(10)
                .demandHeadroomFrac(0.2).ecoCapWattsByType(Map.of()).build());
    }

    @Test
    void anEcoCapAboveThePerformanceCapIsRefusedAtStartAndInSpecPolicy() {
        Map<String, String> env = new HashMap<>(environment(PlannerSettings.defaults()));
        env.put("ECO_CAP_WATTS", "300");
        env.put("PERFORMANCE_CAP_WATTS", "250.5");
        env.put("GPU_ECO_CAP_PERCENT", "80");
        env.put("GPU_PERFORMANCE_CAP_PERCENT", "70");
        Problems problems = new Problems();

        var read = PlannerSetting.read(PlannerSetting.Source.ENVIRONMENT, s -> env.get(s.env()), PlannerSetting::env, problems);

        assertThat(read.settings()).isEmpty();
        assertThat(problems.lines()).containsExactly("ECO_CAP_WATTS (300 W) must not exceed PERFORMANCE_CAP_WATTS (250.5 W): "
                + "eco must never allow more than performance", "GPU_ECO_CAP_PERCENT (80 %) must not exceed "
                + "GPU_PERFORMANCE_CAP_PERCENT (70 %): eco must never allow more than performance");

        // spec.policy sets one of the two: the other comes from the environment, and the pair is checked
        PlannerSettings base = PlannerSettings.defaults().toBuilder().performanceCapWatts(OptionalDouble.of(5000)).build();
        Problems strict = new Problems();
        Map<String, Object> spec = Map.of("ecoCapWatts", 6000.0);
        assertThat(PlannerSetting.overlay(base, spec::get, strict)).isEmpty();
        assertThat(strict.lines()).containsExactly("spec.policy.ecoCapWatts (6000 W) must not exceed performanceCapWatts "
                + "(5000 W): eco must never allow more than performance");
        Problems equal = new Problems();
        assertThat(PlannerSetting.overlay(base, Map.<String, Object>of("ecoCapWatts", 5000.0)::get, equal))
                .map(PlannerSettings::ecoCapWatts).contains(OptionalDouble.of(5000.0));
        assertThat(equal.lines()).isEmpty();
        // a percent set in spec.policy replaces the environment's watts, and is compared with the percent in force
        Problems percent = new Problems();
        assertThat(PlannerSetting.overlay(PlannerSettings.defaults(), Map.<String, Object>of("performanceCapPercent", 50.0)::get,
                percent)).isEmpty();
        assertThat(percent.lines()).containsExactly("spec.policy.ecoCapPercent (60 %) must not exceed performanceCapPercent "
                + "(50 %): eco must never allow more than performance");
        // a type's eco cap replaces the eco CPU cap on its nodes, so it is held to the performance cap as well
        Map<String, String> byType = new HashMap<>(environment(PlannerSettings.defaults()));
        byType.put("PERFORMANCE_CAP_WATTS", "500");
        byType.put("ECO_CAP_WATTS_BY_TYPE", "big=900,small=200");
        Problems typed = new Problems();
        assertThat(PlannerSetting.read(PlannerSetting.Source.ENVIRONMENT, s -> byType.get(s.env()), PlannerSetting::env, typed)
                .settings()).isEmpty();
        assertThat(typed.lines()).containsExactly("ECO_CAP_WATTS_BY_TYPE (big=900 W) must not exceed PERFORMANCE_CAP_WATTS "
                + "(500 W): eco must never allow more than performance");
        Problems typedSpec = new Problems();
        assertThat(PlannerSetting.overlay(base, Map.<String, Object>of("ecoCapWattsByType", Map.of("big", 6000.0))::get, typedSpec))
                .isEmpty();
        assertThat(typedSpec.lines()).containsExactly("spec.policy.ecoCapWattsByType (big=6000 W) must not exceed "
                + "performanceCapWatts (5000 W): eco must never allow more than performance");
        // watts and a percent meet only on a node's hardware, where the agent compares them
        Problems mixed = new Problems();
        assertThat(PlannerSetting.overlay(PlannerSettings.defaults(), Map.<String, Object>of("ecoCapWatts", 6000.0)::get, mixed))
                .isPresent();
        assertThat(mixed.lines()).isEmpty();
    }

    @Test
    void limitsAreCheckedEverywhere() {
        Map<String, String> env = new HashMap<>(environment(PlannerSettings.defaults()));
        env.put("MAX_TRANSITIONS_PER_TICK", "0");
        env.put("MAX_EVICTIONS_PER_TICK", "-1");
        env.put("SETTLE_TIME", "soon");
        Problems problems = new Problems();

        assertThat(PlannerSetting.read(PlannerSetting.Source.ENVIRONMENT, s -> env.get(s.env()), PlannerSetting::env,
                problems).settings()).isEmpty();
        assertThat(problems.lines()).containsExactly("SETTLE_TIME = 'soon': 'soon' is not a duration (e.g. 30s, 1m, 1h30m, PT1M)",
                "MAX_TRANSITIONS_PER_TICK = '0': must be at least 1", "MAX_EVICTIONS_PER_TICK = '-1': must be at least 1");
    }

    @Test
    void aSettleTimeOfZeroIsRefusedEverywhere() {
        Map<String, String> env = new HashMap<>(environment(PlannerSettings.defaults()));
        env.put("SETTLE_TIME", "0s");
        Problems fromEnv = new Problems();
        assertThat(PlannerSetting.read(PlannerSetting.Source.ENVIRONMENT, s -> env.get(s.env()), PlannerSetting::env,
                fromEnv).settings()).isEmpty();
        assertThat(fromEnv.lines()).containsExactly("SETTLE_TIME = '0s': must be greater than 0");

        Problems fromSpec = new Problems();
        assertThat(PlannerSetting.overlay(PlannerSettings.defaults(), Map.<String, Object>of("settleTime", "0")::get, fromSpec))
                .isEmpty();
        assertThat(fromSpec.lines()).containsExactly("spec.policy.settleTime = '0': must be greater than 0");
    }

    @Test
    void theEnvironmentItWritesReadsBackToTheSameSettings() {
        Map<String, String> env = environment(OTHER);
        assertThat(env).containsEntry("POLICY_TYPE", "queue_aware_v1").containsEntry("STATIC_HP_FRAC", "0.25")
                .containsEntry("QUEUE_HP_MIN", "2").containsEntry("DOWNGRADE_TIMEOUT", "1h30m")
                .containsEntry("DOWNGRADE_ESCALATION", "evict").containsEntry("ECO_CAP_WATTS_BY_TYPE", "dell-r640=260.0,dell-r940=407.5")
                .hasSize(PlannerSetting.ALL.size());
        assertThat(environment(PlannerSettings.defaults())).containsEntry("ECO_CAP_WATTS_BY_TYPE", "none");

        Problems problems = new Problems();
        var read = PlannerSetting.read(PlannerSetting.Source.ENVIRONMENT, s -> env.get(s.env()), PlannerSetting::env, problems);

        assertThat(problems.lines()).isEmpty();
        assertThat(read.settings()).contains(OTHER);
        assertThat(read.unknownPolicy()).isEmpty();
    }

    @Test
    void theSpecFieldsItWritesOverlayBackToTheSameSettings() {
        Map<String, Object> fields = PlannerSetting.specFields(OTHER);
        assertThat(fields).containsEntry("type", "queue_aware_v1").containsEntry("staticHpFrac", 0.25)
                .containsEntry("queueHpMin", 2).containsEntry("downgradeTimeout", "1h30m")
                .containsEntry("ecoCapWattsByType", Map.of("dell-r640", 260.0, "dell-r940", 407.5));
        // one unit per cap: the watts where they are the cap, else the percent
        assertThat(fields).containsEntry("performanceCapWatts", 450.5).doesNotContainKey("performanceCapPercent")
                .containsEntry("ecoCapPercent", 55.0).doesNotContainKey("ecoCapWatts")
                .containsEntry("gpuPerformanceCapWattsPerGpu", 600.0).containsEntry("gpuEcoCapPercent", 45.0);

        Problems problems = new Problems();
        assertThat(PlannerSetting.overlay(PlannerSettings.defaults(), fields::get, problems)).contains(OTHER);
        assertThat(problems.lines()).isEmpty();
    }

    @Test
    void theEnvironmentIsLenientWhereSpecPolicyIsStrict() {
        Map<String, String> env = new HashMap<>(environment(PlannerSettings.defaults()));
        env.put("STATIC_HP_FRAC", "1.5");
        env.put("QUEUE_HP_MIN", "-3");
        env.put("POLICY_TYPE", "carbon_magic_v9");
        Problems problems = new Problems();

        var read = PlannerSetting.read(PlannerSetting.Source.ENVIRONMENT, s -> env.get(s.env()), PlannerSetting::env, problems);

        assertThat(problems.lines()).isEmpty();
        assertThat(read.settings().orElseThrow().staticHpFrac()).isEqualTo(1.5);
        assertThat(read.settings().orElseThrow().policyType()).isEqualTo(PolicyType.STATIC_PARTITION);
        assertThat(read.unknownPolicy()).contains("carbon_magic_v9");

        Map<String, Object> spec = Map.of("staticHpFrac", 1.5, "queueHpMin", -3, "type", "carbon_magic_v9");
        Problems strict = new Problems();
        assertThat(PlannerSetting.overlay(PlannerSettings.defaults(), spec::get, strict)).isEmpty();
        assertThat(strict.lines()).containsExactly(
                "spec.policy.type 'carbon_magic_v9' is not a known policy (static_partition, queue_aware_v1, demand_sized_v1,"
                        + " rule_swap_v1)",
                "spec.policy.staticHpFrac = 1.5: must be between 0 and 1",
                "spec.policy.queueHpMin = -3: must be at least 0");
    }

    @Test
    void theSimulatorReadsItsOwnParametersAndKeepsTheRest() {
        Map<String, String> params = new HashMap<>();
        PlannerSetting.ALL.forEach(s -> s.simulatorKey().ifPresent(k -> params.put(k, s.simulatorDefault().orElseThrow())));
        assertThat(params).containsEntry("planner.downgradeTimeoutSeconds", "1800").doesNotContainKey("planner.type");
        params.put("planner.downgradeTimeoutSeconds", "90.5");
        Problems problems = new Problems();

        Optional<PlannerSettings> s = PlannerSetting.read(PlannerSetting.Source.SIMULATOR,
                row -> params.get(row.simulatorKey().orElseThrow()), row -> row.simulatorKey().orElseThrow(), problems).settings();

        assertThat(problems.lines()).isEmpty();
        assertThat(s.orElseThrow().downgradeTimeout()).isEqualTo(Duration.ofMillis(90_500));
        assertThat(s.orElseThrow().ecoCapWatts()).hasValue(260);
        assertThat(s.orElseThrow().reconcileInterval()).as("not a parameter: the default").isEqualTo(Duration.ofMinutes(1));

        params.put("planner.escalation", "panic");
        params.put("planner.ecoCapWatts", "0");
        Problems bad = new Problems();
        assertThat(PlannerSetting.read(PlannerSetting.Source.SIMULATOR, row -> params.get(row.simulatorKey().orElseThrow()),
                row -> row.simulatorKey().orElseThrow(), bad).settings()).isEmpty();
        assertThat(bad.lines()).containsExactly("planner.ecoCapWatts = '0': a power cap must be greater than 0 watts (or none)",
                "planner.escalation = 'panic': must be hold, force or evict");
    }

    @Test
    void aCapIsWattsWhereGivenElseItsPercentAndSpecPolicySetsOneUnitThatReplacesTheEnvironmentsCap() {
        PlannerSettings env = PlannerSettings.defaults().toBuilder().ecoCapWatts(OptionalDouble.of(120)).build();
        assertThat(env.caps(io.joulie.api.v1alpha1.Profile.ECO).cpu()).isEqualTo(CpuPower.watts(120));
        assertThat(env.caps(io.joulie.api.v1alpha1.Profile.PERFORMANCE).cpu()).isEqualTo(CpuPower.percent(100));
        assertThat(env.caps(io.joulie.api.v1alpha1.Profile.ECO).gpu()).isEqualTo(GpuPower.percent(60));

        Problems problems = new Problems();
        PlannerSettings overlaid = PlannerSetting.overlay(env, Map.<String, Object>of("ecoCapPercent", 50.0)::get, problems).orElseThrow();
        assertThat(overlaid.caps(io.joulie.api.v1alpha1.Profile.ECO).cpu()).as("the percent set in spec.policy is the cap")
                .isEqualTo(CpuPower.percent(50));

        Problems both = new Problems();
        assertThat(PlannerSetting.overlay(env, Map.<String, Object>of("gpuEcoCapWattsPerGpu", 300.0, "gpuEcoCapPercent", 50.0)::get,
                both)).isEmpty();
        assertThat(both.lines()).containsExactly(
                "spec.policy.gpuEcoCapWattsPerGpu and spec.policy.gpuEcoCapPercent are mutually exclusive");

        Problems range = new Problems();
        assertThat(PlannerSetting.overlay(env, Map.<String, Object>of("ecoCapPercent", 120.0)::get, range)).isEmpty();
        assertThat(range.lines()).containsExactly("spec.policy.ecoCapPercent = 120.0: a percent cap must be greater than 0 and at most 100");
        Map<String, String> text = new HashMap<>(environment(PlannerSettings.defaults()));
        text.put("ECO_CAP_PERCENT", "0");
        text.put("GPU_ECO_CAP_WATTS_PER_GPU", "-1");
        Problems strictEverywhere = new Problems();
        assertThat(PlannerSetting.read(PlannerSetting.Source.ENVIRONMENT, s -> text.get(s.env()), PlannerSetting::env, strictEverywhere)
                .settings()).isEmpty();
        assertThat(strictEverywhere.lines()).containsExactly(
                "ECO_CAP_PERCENT = '0': a percent cap must be greater than 0 and at most 100",
                "GPU_ECO_CAP_WATTS_PER_GPU = '-1': a power cap must be greater than 0 watts (or none)");
    }

    /** The settings as the text of the operator's environment variables, which the table still reads. */
    static Map<String, String> environment(PlannerSettings s) {
        Map<String, String> env = new LinkedHashMap<>();
        PlannerSetting.ALL.forEach(row -> env.put(row.env(), text(row, s)));
        return env;
    }

    private static <T> String text(PlannerSetting<T> row, PlannerSettings s) {
        return row.kind().format(row.get(s));
    }
}
