package io.joulie.agent.control;

import java.util.Map;

/** A family's host control, as the reconcile asks it about what it did without acting. */
public interface HostControl extends Control {
    /** What is in force now, for a status that reports without acting (blocked requests). */
    Map<Observed, Double> observedNow();

    /** How many limits found changed behind the agent's back it has put back so far. */
    int rewrites();

    /** An earlier agent process of this boot wrote limits and did not restore them: they are this agent's to undo. */
    boolean leftByEarlierProcess();
}
