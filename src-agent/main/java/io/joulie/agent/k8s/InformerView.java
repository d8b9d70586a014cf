package io.joulie.agent.k8s;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileSpec;
import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * The agent's watches: every NodePowerProfile (indexed by {@code spec.nodeName}, matched client-side:
 * field selectors on custom fields do not exist), every TelemetryProfile, and in pool mode every Node.
 * Handlers receive the names of the nodes an event concerns.
 */
public final class InformerView implements AgentView {
    private static final Logger LOG = Logger.getLogger(InformerView.class);
    static final String BY_NODE = "byNode";

    private final KubernetesClient client;
    private volatile SharedIndexInformer<NodePowerProfile> profiles;
    private volatile SharedIndexInformer<TelemetryProfile> telemetry;
    private volatile SharedIndexInformer<Node> nodes;
    /** Set once every informer has been started: synced() is false before, whatever the informers say. */
    private volatile boolean started;

    public InformerView(KubernetesClient client) {
        this.client = client;
    }

    /**
     * Starts the watches. {@code onNode} gets each node a NodePowerProfile or node-scoped TelemetryProfile
     * event concerns; {@code onAll} is called for cluster-scoped TelemetryProfile changes and (pool mode)
     * Node label changes. Status-only updates trigger nothing.
     *
     * @return completes once every watch has delivered its initial list (the informers retry a failed list)
     */
    public CompletionStage<Void> start(boolean watchNodes, Consumer<String> onNode, Runnable onAll) {
        profiles = client.resources(NodePowerProfile.class).runnableInformer(0);
        profiles.addIndexers(Map.of(BY_NODE, p -> p.getSpec() == null || p.getSpec().nodeName() == null
                ? List.of() : List.of(p.getSpec().nodeName())));
        profiles.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(NodePowerProfile p) {
                node(p).ifPresent(onNode);
            }

            @Override
            public void onUpdate(NodePowerProfile oldP, NodePowerProfile newP) {
                node(oldP).filter(n -> !n.equals(node(newP).orElse(null))).ifPresent(onNode);
                node(newP).ifPresent(onNode);
            }

            @Override
            public void onDelete(NodePowerProfile p, boolean unknownFinalState) {
                node(p).ifPresent(onNode);
            }
        });
        telemetry = client.resources(TelemetryProfile.class).runnableInformer(0);
        telemetry.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(TelemetryProfile tp) {
                routeChanged(tp, onNode, onAll);
            }

            @Override
            public void onUpdate(TelemetryProfile oldTp, TelemetryProfile newTp) {
                // Status writes (the agents' own reports) change nothing about routing.
                if (!Objects.equals(oldTp.getSpec(), newTp.getSpec())) {
                    routeChanged(oldTp, onNode, onAll);
                    routeChanged(newTp, onNode, onAll);
                }
            }

            @Override
            public void onDelete(TelemetryProfile tp, boolean unknownFinalState) {
                routeChanged(tp, onNode, onAll);
            }
        });
        List<SharedIndexInformer<?>> all = new ArrayList<>(List.of(profiles, telemetry));
        if (watchNodes) {
            nodes = client.nodes().runnableInformer(0);
            nodes.addEventHandler(new ResourceEventHandler<>() {
                @Override
                public void onAdd(Node n) {
                    onAll.run();
                }

                @Override
                public void onUpdate(Node oldNode, Node newNode) {
                    // Heartbeats and status updates do not change which nodes the pool serves.
                    if (!Objects.equals(oldNode.getMetadata().getLabels(), newNode.getMetadata().getLabels())) {
                        onAll.run();
                    }
                }

                @Override
                public void onDelete(Node n, boolean unknownFinalState) {
                    onAll.run();
                }
            });
            all.add(nodes);
        }
        List<CompletableFuture<Void>> lists = new ArrayList<>();
        for (SharedIndexInformer<?> informer : all) {
            informer.exceptionHandler((running, t) -> {
                LOG.warnf("Watch of %s failed (%s); retrying", informer.getApiTypeClass().getSimpleName(), t.toString());
                return true;
            });
            lists.add(informer.start().toCompletableFuture());
        }
        started = true;
        LOG.infof("Watching NodePowerProfiles, TelemetryProfiles%s", watchNodes ? " and Nodes" : "");
        return CompletableFuture.allOf(lists.toArray(CompletableFuture[]::new));
    }

    /** A node-scoped profile concerns its node; any other (cluster-scoped) concerns every node. */
    private static void routeChanged(TelemetryProfile tp, Consumer<String> onNode, Runnable onAll) {
        var target = tp.getSpec() == null ? null : tp.getSpec().target();
        if (target != null && target.scope() == TelemetryProfileSpec.Scope.NODE && target.nodeName() != null) {
            onNode.accept(target.nodeName());
        } else {
            onAll.run();
        }
    }

    private static Optional<String> node(NodePowerProfile p) {
        return Optional.ofNullable(p.getSpec()).map(s -> s.nodeName());
    }

    public void stop() {
        for (SharedIndexInformer<?> informer : informers()) {
            informer.stop();
        }
    }

    private List<SharedIndexInformer<?>> informers() {
        List<SharedIndexInformer<?>> list = new ArrayList<>();
        for (SharedIndexInformer<?> i : Arrays.asList(profiles, telemetry, nodes)) {
            if (i != null) {
                list.add(i);
            }
        }
        return list;
    }

    /** True once every watch has delivered its initial list. */
    public boolean synced() {
        return started && informers().stream().allMatch(SharedIndexInformer::hasSynced);
    }

    @Override
    public Optional<NodePowerProfile> profileFor(String node) {
        return AgentView.preferred(node, profiles.getIndexer().byIndex(BY_NODE, node));
    }

    @Override
    public Collection<TelemetryProfile> telemetryProfiles() {
        return telemetry.getStore().list();
    }

    @Override
    public Optional<Node> node(String name) {
        return nodes == null ? Optional.empty() : Optional.ofNullable(nodes.getStore().getByKey(name));
    }

    @Override
    public Collection<Node> nodes() {
        return nodes == null ? List.of() : nodes.getStore().list();
    }
}
