package io.joulie.agent.k8s;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileSpec;
import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * The agent's watches. A node-mode agent watches what concerns its node only: its NodePowerProfile (by name, the one
 * the operator writes for it), the TelemetryProfiles labelled {@code joulie.io/node=<node>} (the node-scoped profile
 * the agent creates) and the unlabelled ones (cluster-scoped profiles, node-scoped ones written by hand): at 5,000
 * nodes it holds a handful of objects instead of 10,000, and the other agents' status writes never reach it. A pool
 * agent watches every NodePowerProfile (indexed by {@code spec.nodeName}), every TelemetryProfile and every Node.
 * Handlers receive the names of the nodes an event concerns.
 */
public final class InformerView implements AgentView {
    private static final Logger LOG = Logger.getLogger(InformerView.class);
    static final String BY_NODE = "byNode";

    private final KubernetesClient client;
    private volatile SharedIndexInformer<NodePowerProfile> profiles;
    /** One informer (pool mode), or two (node mode: the node's labelled profiles, and the unlabelled ones). */
    private volatile List<SharedIndexInformer<TelemetryProfile>> telemetry = List.of();
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
     * @param node the node-mode agent's node; empty in pool mode (every profile, and the Nodes, are watched)
     * @return completes once every watch has delivered its initial list (the informers retry a failed list)
     */
    public CompletionStage<Void> start(Optional<String> node, Consumer<String> onNode, Runnable onAll) {
        boolean watchNodes = node.isEmpty();
        profiles = node.isPresent()
                ? client.resources(NodePowerProfile.class).withField("metadata.name", JoulieApi.nodePowerProfileName(node.get()))
                .runnableInformer(0)
                : client.resources(NodePowerProfile.class).runnableInformer(0);
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
        List<SharedIndexInformer<TelemetryProfile>> tps = new ArrayList<>();
        if (node.isEmpty()) {
            tps.add(client.resources(TelemetryProfile.class).runnableInformer(0));
        } else {
            JoulieApi.nodeLabelValue(node.get()).ifPresent(value -> tps.add(client.resources(TelemetryProfile.class)
                    .withLabel(JoulieApi.NODE_LABEL, value).runnableInformer(0)));
            tps.add(client.resources(TelemetryProfile.class).withoutLabel(JoulieApi.NODE_LABEL).runnableInformer(0));
        }
        telemetry = List.copyOf(tps);
        for (SharedIndexInformer<TelemetryProfile> tp : telemetry) {
            tp.addEventHandler(routeHandler(onNode, onAll));
        }
        List<SharedIndexInformer<?>> all = new ArrayList<>();
        all.add(profiles);
        all.addAll(telemetry);
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
        LOG.infof(node.map(n -> "Watching NodePowerProfile " + JoulieApi.nodePowerProfileName(n) + " and the TelemetryProfiles labelled "
                + JoulieApi.NODE_LABEL + "=" + n + " or not labelled").orElse("Watching NodePowerProfiles, TelemetryProfiles and Nodes"));
        return CompletableFuture.allOf(lists.toArray(CompletableFuture[]::new));
    }

    /** TelemetryProfile events: a change of routing (not a status write) concerns the node(s) of the profile. */
    private static ResourceEventHandler<TelemetryProfile> routeHandler(Consumer<String> onNode, Runnable onAll) {
        return new ResourceEventHandler<>() {
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
        };
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
        if (profiles != null) {
            list.add(profiles);
        }
        list.addAll(telemetry);
        if (nodes != null) {
            list.add(nodes);
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
        List<SharedIndexInformer<TelemetryProfile>> informers = telemetry;
        if (informers.size() == 1) {
            return informers.getFirst().getStore().list();
        }
        List<TelemetryProfile> all = new ArrayList<>();
        informers.forEach(i -> all.addAll(i.getStore().list()));
        return all;
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
