package io.joulie.agent.control;

/** A control family: one part of a NodePowerProfile's spec, answered in {@code status.applied.<family>}. */
public enum Family {
    CPU("cpu"),
    GPU("gpu");

    private final String key;

    Family(String key) {
        this.key = key;
    }

    /** The key in the status and in messages: {@code cpu}, {@code gpu}. */
    public String key() {
        return key;
    }
}
