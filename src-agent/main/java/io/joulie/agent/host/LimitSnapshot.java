package io.joulie.agent.host;

/** A long_term power limit as found when the agent started, so it can be written back. */
public record LimitSnapshot(String zoneId, int constraintIndex, long powerLimitUw) {
}
