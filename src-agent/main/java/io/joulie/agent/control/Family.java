package io.joulie.agent.control;

/** A control family: what {@code status.control.<family>} of a TelemetryProfile reports. */
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
