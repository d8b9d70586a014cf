package io.joulie.api.v1alpha1;

import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/**
 * The server-side apply field managers of a NodePowerProfile's two writers (decision 129): each owns its own fields, so
 * neither can undo the other's. Kept apart from {@link JoulieApi}, which the planner loads without the Kubernetes client.
 */
public final class FieldManagers {
    /** The operator's: a NodePowerProfile's spec and its status but for {@code applied}. */
    public static final String OPERATOR = "joulie-operator";
    /** The agents': {@code status.applied} of the NodePowerProfiles. */
    public static final String AGENT = "joulie-agent";

    private FieldManagers() {
    }

    /** A server-side apply by {@code fieldManager}, taking over fields another manager set (each field has one writer). */
    public static PatchContext apply(String fieldManager) {
        return new PatchContext.Builder().withPatchType(PatchType.SERVER_SIDE_APPLY).withFieldManager(fieldManager).withForce(true)
                .build();
    }
}
