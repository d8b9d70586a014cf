package io.joulie.operator.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.joulie.api.v1alpha1.NodePowerProfile;

/**
 * Checks leadership before every request: a tick or a recheck that loses the Lease sends no further write, not even
 * the next request of the node it is writing (a node's writes are several requests). Throws {@link LeadershipLost}.
 */
final class FencedApiWrites implements ApiWrites {
    private final ApiWrites api;
    private final Leadership leadership;

    FencedApiWrites(ApiWrites api, Leadership leadership) {
        this.api = api;
        this.leadership = leadership;
    }

    /** The requests it fences. */
    ApiWrites inner() {
        return api;
    }

    private void fence() {
        if (!leadership.held()) {
            throw new LeadershipLost();
        }
    }

    @Override
    public NodePowerProfile create(NodePowerProfile npp) {
        fence();
        return api.create(npp);
    }

    @Override
    public NodePowerProfile update(NodePowerProfile npp) {
        fence();
        return api.update(npp);
    }

    @Override
    public NodePowerProfile updateStatus(NodePowerProfile npp) {
        fence();
        return api.updateStatus(npp);
    }

    @Override
    public void delete(NodePowerProfile npp) {
        fence();
        api.delete(npp);
    }

    @Override
    public NodePowerProfile get(String name) {
        return api.get(name);
    }

    @Override
    public void label(Node node, String key, String expected, String value) {
        fence();
        api.label(node, key, expected, value);
    }

    @Override
    public boolean evict(String namespace, String name) {
        fence();
        return api.evict(namespace, name);
    }
}
