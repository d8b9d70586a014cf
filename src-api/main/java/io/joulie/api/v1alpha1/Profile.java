package io.joulie.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The power profile a node runs. */
public enum Profile {
    /** Unconstrained / HPC-oriented: the performance cap. */
    @JsonProperty("performance")
    PERFORMANCE("performance"),
    /** Energy-saving: the eco cap. */
    @JsonProperty("eco")
    ECO("eco");

    private final String value;

    Profile(String value) {
        this.value = value;
    }

    /** The wire value, also used as the node label value. */
    public String value() {
        return value;
    }
}
