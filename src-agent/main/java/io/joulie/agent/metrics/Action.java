package io.joulie.agent.metrics;

import java.util.Locale;

/** The {@code kind} of an action counted in {@code joulie_agent_actions_total}. Periodic checks that change nothing are not counted. */
public enum Action {
    /** A change: a reconcile an event asked for. */
    APPLY,
    /** A limit changed behind the agent's back, put back by the periodic re-check. */
    REAPPLY,
    /** The limits found at start written back (profile deleted, control moved away from host). */
    RESTORE;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
