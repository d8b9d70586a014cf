package io.joulie.operator.metrics;

/** The {@code resource} and {@code verb} labels of {@code joulie_api_writes_total}: every kind of write a tick sends. */
public enum ApiWrite {
    NODE_POWER_PROFILE_CREATE("nodepowerprofile", "create"),
    NODE_POWER_PROFILE_UPDATE("nodepowerprofile", "update"),
    NODE_POWER_PROFILE_UPDATE_STATUS("nodepowerprofile", "update-status"),
    NODE_POWER_PROFILE_DELETE("nodepowerprofile", "delete"),
    NODE_PATCH("node", "patch"),
    POD_EVICT("pod", "evict");

    private final String resource;
    private final String verb;

    ApiWrite(String resource, String verb) {
        this.resource = resource;
        this.verb = verb;
    }

    public String resource() {
        return resource;
    }

    public String verb() {
        return verb;
    }
}
