package io.joulie.agent.control;

import io.joulie.agent.host.CapRequest;

import java.util.Map;
import java.util.Optional;

/**
 * What a host control last wrote, for the family's limits keyed by {@code K} (package zone, board index): the cap, the
 * limits read back right after (the reference, not the values written, which a driver may round) and the apply's
 * message; and the cap the host last blocked, with the host's answer. Decides whether an enforce needs to write: none
 * while the cap is unchanged and the limits read back equal the reference; a blocked cap is not tried again until the
 * cap changes or the limits are restored. Counts the rewrites of limits changed behind the agent's back. Not
 * thread-safe: the agent's worker uses it.
 *
 * @param <R> the host's answer to an apply
 */
public final class LimitReference<K, R> {
    private CapRequest applied;
    private Map<K, Long> reference = Map.of();
    private String message = "";
    private CapRequest blockedCap;
    private R blocked;
    private int rewrites;

    /** The last apply's message, when {@code cap} is the one applied and {@code current} still equals the reference. */
    public Optional<String> converged(CapRequest cap, Map<K, Long> current) {
        return cap.equals(applied) && current.equals(reference) ? Optional.of(message) : Optional.empty();
    }

    /** The host's answer to {@code cap} when it blocked it last time. */
    public Optional<R> knownBlocked(CapRequest cap) {
        return blocked != null && cap.equals(blockedCap) ? Optional.of(blocked) : Optional.empty();
    }

    /** {@code cap} was written and {@code readBack} is what the host reports now; writing the same cap again was a drift repair. */
    public void applied(CapRequest cap, Map<K, Long> readBack, String message) {
        if (cap.equals(applied)) {
            rewrites++;
        }
        forget();
        this.applied = cap;
        this.reference = Map.copyOf(readBack);
        this.message = message;
    }

    /** The host blocked {@code cap}: nothing of ours is in force. */
    public void blocked(CapRequest cap, R answer) {
        forget();
        blockedCap = cap;
        blocked = answer;
    }

    /** Nothing of ours is known to be in force (an error, a restore). */
    public void forget() {
        applied = null;
        reference = Map.of();
        message = "";
        blockedCap = null;
        blocked = null;
    }

    /** How many times a limit found different from the reference was written again. */
    public int rewrites() {
        return rewrites;
    }
}
