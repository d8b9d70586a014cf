package io.joulie.api.v1alpha1;

/** A managed node's place in the two-phase downgrade state machine. */
public enum PowerState {
    /** Runs the performance profile. */
    ActivePerformance(Profile.PERFORMANCE),
    /** Planned eco, but performance-only pods still run: keeps the performance cap, admits no new ones. */
    DrainingPerformance(Profile.PERFORMANCE),
    /** Runs the eco profile. */
    ActiveEco(Profile.ECO);

    private final Profile profile;

    PowerState(Profile profile) {
        this.profile = profile;
    }

    /** The profile (and so the cap) this state applies to the node. */
    public Profile profile() {
        return profile;
    }

    /** The value of the node's {@code joulie.io/power-profile} label in this state. */
    public String labelValue() {
        return this == DrainingPerformance ? JoulieApi.DRAINING_PERFORMANCE : profile.value();
    }
}
