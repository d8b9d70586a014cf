package io.joulie.planner;

import io.joulie.api.v1alpha1.Profile;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code rule_swap_v1}, a debugging policy: phase = floor(epochSeconds / (3 × intervalSeconds)) mod 2; in
 * phase 0 the first eligible node (by name) is eco and the second performance, in phase 1 the reverse; every
 * other node stays performance. A phase lasts {@value #PHASE_TICKS} ticks: a downgrade drains for one tick
 * before it commits eco, so every swapped node still shows eco for a tick or more.
 */
public final class RuleSwapPolicy implements PolicyModule {
    /** Ticks per phase. */
    public static final int PHASE_TICKS = 3;
    private final long phaseSeconds;

    public RuleSwapPolicy(Duration interval) {
        this.phaseSeconds = PHASE_TICKS * Math.max(1, interval.toSeconds());
    }

    @Override
    public String name() {
        return PolicyType.RULE_SWAP_V1.policyName();
    }

    @Override
    public Plan plan(ClusterContext context) {
        var eligible = context.eligible();
        long phase = Math.floorMod(Math.floorDiv(context.now().getEpochSecond(), phaseSeconds), 2);
        Map<String, Profile> targets = new HashMap<>();
        for (int i = 0; i < eligible.size(); i++) {
            Profile p = Profile.PERFORMANCE;
            if (i == 0) {
                p = phase == 0 ? Profile.ECO : Profile.PERFORMANCE;
            } else if (i == 1) {
                p = phase == 0 ? Profile.PERFORMANCE : Profile.ECO;
            }
            targets.put(eligible.get(i).name(), p);
        }
        int hp = (int) targets.values().stream().filter(p -> p == Profile.PERFORMANCE).count();
        return new Plan(name(), targets, hp, "phase " + phase);
    }
}
