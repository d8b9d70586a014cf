package io.joulie.agent.runtime;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.joulie.agent.backend.ControlOutcome;
import io.joulie.agent.backend.CpuControl;
import io.joulie.agent.backend.HostCpuControl;
import io.joulie.agent.backend.HttpCpuControl;
import io.joulie.agent.backend.NoneCpuControl;
import io.joulie.agent.backend.PowerTelemetry;
import io.joulie.agent.config.AgentMode;
import io.joulie.agent.config.AgentSettings;
import io.joulie.agent.control.PackagePowerMeter;
import io.joulie.agent.host.Host;
import io.joulie.agent.host.HostCapabilities;
import io.joulie.agent.host.ffm.FfmHost;
import io.joulie.agent.k8s.AgentView;
import io.joulie.agent.k8s.StatusWriter;
import io.joulie.agent.pool.Sharding;
import io.joulie.agent.routing.Route;
import io.joulie.agent.routing.Routing;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileSpec;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.ControlType;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.Source;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.SourceType;
import io.joulie.api.v1alpha1.TelemetryProfileStatus;
import io.joulie.api.v1alpha1.TelemetryProfileStatus.Result;
import io.micrometer.core.instrument.Timer;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The agent's control loop. One worker thread does all the work, so host and backend state need no locks:
 * <ul>
 * <li>a NodePowerProfile event enqueues its node, a TelemetryProfile or Node event every served node
 *     (coalesced: a node already queued is not queued twice) — changes are applied within milliseconds;</li>
 * <li>every AGENT_RECONCILE_INTERVAL every served node is reconciled again, which reads the hardware
 *     limits back and rewrites any that changed behind the agent's back.</li>
 * </ul>
 * A reconcile reads package power, resolves the route, validates the NodePowerProfile (a bad one is
 * {@code blocked} and never reaches a backend), enforces the cap, updates metrics and writes the
 * TelemetryProfile status when its content changed.
 */
@ApplicationScoped
public class NodeAgent {
    private static final Logger LOG = Logger.getLogger(NodeAgent.class);
    /** Left out of the status comparison: it changes on every reading (docs/decisions.md). */
    static final String VOLATILE_OBSERVED = "packagePowerWatts";

    private final KubernetesClient client;
    private final AgentSettings settings;
    private final AgentMetrics metrics;
    private final Clock clock = Clock.systemUTC();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Map<String, NodeState> states = new ConcurrentHashMap<>();
    private final Set<String> pending = ConcurrentHashMap.newKeySet();
    private Host host;
    private HostCpuControl hostControl;
    private PackagePowerMeter meter;
    private HostCapabilities capabilities;
    private AgentView view;
    private StatusWriter status;
    private ScheduledExecutorService worker;
    private volatile boolean probed;
    private volatile boolean labelsDone;
    private volatile Instant started;
    private volatile Instant lastPeriodic;

    /** What the agent remembers about one node between reconciles. */
    private static final class NodeState {
        final String node;
        boolean desired;
        HttpCpuControl http;
        Instant lastSampleAt;
        /** The last package power reading (empty: none); event-driven reconciles reuse it for remote sources. */
        OptionalDouble lastWatts = OptionalDouble.empty();
        /** The agent has written (or may have written) host limits for this node since they were last restored. */
        boolean hostTouched;
        StatusKey lastStatus;
        boolean statusWritten;

        NodeState(String node) {
            this.node = node;
        }
    }

    /** The part of a status that decides whether it is written again (updatedAt and packagePowerWatts left out). */
    record StatusKey(String backend, Result result, String message, Map<String, Double> observed) {
        static StatusKey of(String backend, Result result, String message, Map<String, Double> observed) {
            Map<String, Double> stable = new TreeMap<>(observed == null ? Map.of() : observed);
            stable.remove(VOLATILE_OBSERVED);
            return new StatusKey(backend, result, message, stable);
        }
    }

    public NodeAgent(KubernetesClient client, AgentSettings settings, AgentMetrics metrics) {
        this.client = client;
        this.settings = settings;
        this.metrics = metrics;
    }

    void start(@Observes StartupEvent ev) {
        started = clock.instant();
        if (settings.mode() == AgentMode.NODE) {
            String node = settings.nodeName().orElseThrow();
            try {
                host = FfmHost.open(settings.roots());
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot read the host under " + settings.roots()
                        + " (JOULIE_SYSFS_ROOT, JOULIE_PROC_ROOT, JOULIE_DEV_ROOT)", e);
            }
            hostControl = new HostCpuControl(host.powercap(), host.cpufreq(), clock);
            meter = new PackagePowerMeter(host.powercap(), clock);
            capabilities = host.capabilities();
            metrics.capabilities(node, capabilities.labels());
            LOG.infof("Node %s: %d RAPL packages, %d cpufreq policies, capabilities %s", node, host.powercap().packages().size(),
                    host.cpufreq().policies().size(), capabilities.labels());
        }
        probed = true;
        status = new StatusWriter(client, clock);
        worker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "joulie-agent");
            t.setDaemon(true);
            return t;
        });
        view = new AgentView(client);
        // queued before the informers start, so it runs before any event's reconcile
        worker.execute(this::awaitSync);
        view.start(settings.mode() == AgentMode.POOL, this::enqueue, this::enqueueAll);
        long interval = settings.reconcileInterval().toMillis();
        worker.scheduleWithFixedDelay(this::periodic, interval, interval, TimeUnit.MILLISECONDS);
    }

    /** The first task: waits for the initial lists, so routing never runs on a partial view, then reconciles everything. */
    private void awaitSync() {
        while (!view.synced() && !worker.isShutdown()) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        LOG.info("Watches synced");
        patchLabels();
        for (String node : nodesToVisit()) {
            safely(node, false);
        }
    }

    void stop(@Observes ShutdownEvent ev) {
        if (view != null) {
            view.stop();
        }
        if (worker != null) {
            worker.shutdownNow();
            try {
                if (!worker.awaitTermination(10, TimeUnit.SECONDS)) {
                    LOG.warn("The agent worker did not stop within 10 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (hostControl != null && settings.restoreOnExit()) {
            ControlOutcome restored = hostControl.restore();
            LOG.infof("Shutdown: %s (%s)", restored.message(), restored.result());
        }
        if (host != null) {
            host.close();
        }
    }

    void enqueue(String node) {
        if (pending.add(node)) {
            try {
                worker.execute(() -> {
                    pending.remove(node);
                    if (view.synced()) { // before that, awaitSync reconciles every node once synced
                        safely(node, false);
                    }
                });
            } catch (java.util.concurrent.RejectedExecutionException e) {
                pending.remove(node); // shutting down
            }
        }
    }

    void enqueueAll() {
        if (view.synced()) {
            nodesToVisit().forEach(this::enqueue);
        }
    }

    private void periodic() {
        try {
            if (view.synced()) {
                patchLabels();
                for (String node : nodesToVisit()) {
                    safely(node, true);
                }
            }
        } finally {
            lastPeriodic = clock.instant();
            metrics.lastReconcile(lastPeriodic.getEpochSecond());
        }
    }

    private void safely(String node, boolean periodic) {
        try {
            reconcile(node, periodic);
        } catch (RuntimeException e) {
            LOG.warnf(e, "Reconcile of node %s failed", node);
            metrics.error(node, "reconcile");
        }
    }

    /** Served nodes plus nodes still remembered (so a node that left is released). */
    private Set<String> nodesToVisit() {
        Set<String> nodes = new LinkedHashSet<>(servedNodes());
        nodes.addAll(states.keySet());
        return nodes;
    }

    Set<String> servedNodes() {
        if (settings.mode() == AgentMode.NODE) {
            return Set.of(settings.nodeName().orElseThrow());
        }
        Set<String> served = new LinkedHashSet<>();
        for (Node n : view.nodes()) {
            if (servesPoolNode(n)) {
                served.add(n.getMetadata().getName());
            }
        }
        return served;
    }

    private boolean servesPoolNode(Node n) {
        return settings.poolSelector().test(n.getMetadata().getLabels())
                && Sharding.shardOf(n.getMetadata().getName(), settings.poolShards()) == settings.poolShardId();
    }

    private boolean serves(String node) {
        return settings.mode() == AgentMode.NODE ? node.equals(settings.nodeName().orElse(null))
                : view.node(node).filter(this::servesPoolNode).isPresent();
    }

    private void reconcile(String node, boolean periodic) {
        NodeState st = states.get(node);
        if (!serves(node)) {
            if (st != null) {
                states.remove(node);
                if (st.http != null) {
                    st.http.restore();
                }
                metrics.forget(node);
                LOG.infof("Node %s is no longer served by this agent", node);
            }
            return;
        }
        if (st == null) {
            st = new NodeState(node);
            states.put(node, st);
        }
        Route route = Routing.resolve(view.telemetryProfiles(), node);
        if (route.cpuControl() != ControlType.HOST && st.hostTouched) {
            ControlOutcome restored = restoreHost(st);
            LOG.infof("Node %s: CPU control moved from host to %s; %s", node, route.cpuControl(), restored.message());
            record(node, "restore", restored);
        }
        // Remote telemetry (HTTP, Prometheus) is read on the periodic reconcile only, so that a slow or
        // unreachable source never delays applying a changed NodePowerProfile; events use the last reading.
        OptionalDouble watts = periodic || route.cpuSource() == SourceType.HOST || st.lastWatts.isEmpty()
                ? readPower(st, route) : st.lastWatts;
        Optional<NodePowerProfile> npp = view.profileFor(node);
        Timer.Sample sample = Timer.start();
        ControlOutcome out;
        String kind;
        if (npp.isEmpty()) {
            if (!st.desired) {
                return; // nothing asked of this node, nothing to undo
            }
            st.desired = false;
            out = release(st, route);
            kind = "restore";
        } else {
            st.desired = true;
            Optional<String> invalid = invalid(npp.get());
            if (invalid.isPresent()) {
                out = ControlOutcome.blocked(backendName(route), invalid.get(), observedNow(route));
                kind = "apply";
            } else if (route.cpuControl() == ControlType.HOST && settings.mode() == AgentMode.POOL) {
                out = ControlOutcome.blocked(HostCpuControl.POWERCAP, "host control is not available in pool mode; "
                        + "set controls.cpu.type to http or none in a TelemetryProfile", Map.of());
                kind = "apply";
            } else {
                int rewritesBefore = hostControl == null ? 0 : hostControl.rewrites();
                out = control(st, route).enforce(npp.get().getSpec().cpu().packagePowerCapWatts(), watts);
                if (route.cpuControl() == ControlType.HOST && out.result() != Result.BLOCKED && out.result() != Result.NONE) {
                    st.hostTouched = true;
                }
                boolean drift = hostControl != null && hostControl.rewrites() > rewritesBefore;
                kind = drift ? "reapply" : periodic ? null : "apply";
                if (drift) {
                    LOG.infof("Node %s: a long_term limit had changed behind the agent's back; rewritten", node);
                }
            }
        }
        sample.stop(metrics.applyTimer(node));
        if (watts.isPresent()) {
            out = out.withObserved(VOLATILE_OBSERVED, watts.getAsDouble());
        }
        record(node, kind, out);
        writeStatus(st, out);
    }

    private void record(String node, String kind, ControlOutcome out) {
        metrics.backend(node, out.backend());
        Double perPackage = out.observed().get("capWattsPerPackage");
        if (perPackage != null) {
            metrics.capPerPackage(node, perPackage);
        }
        metrics.throttle(node, out.observed().getOrDefault("throttlePct",
                hostControl != null && HostCpuControl.DVFS.equals(out.backend()) ? hostControl.throttlePercent() : 0.0));
        if (kind != null) {
            metrics.action(node, kind, out.backend(), result(out.result()));
        }
        if (out.result() == Result.ERROR) {
            metrics.error(node, "control");
        }
    }

    private static String result(Result r) {
        return r.name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Why a NodePowerProfile must not reach a backend, if it must not. */
    static Optional<String> invalid(NodePowerProfile npp) {
        String name = "NodePowerProfile " + npp.getMetadata().getName() + ": ";
        NodePowerProfileSpec spec = npp.getSpec();
        if (spec == null) {
            return Optional.of(name + "no spec; the previous limit stays");
        }
        if (spec.profile() == null) {
            return Optional.of(name + "spec.profile is missing or not performance/eco; the previous limit stays");
        }
        if (spec.cpu() == null || spec.cpu().packagePowerCapWatts() == null) {
            return Optional.of(name + "spec.cpu.packagePowerCapWatts is missing; the previous limit stays");
        }
        double cap = spec.cpu().packagePowerCapWatts();
        if (!Double.isFinite(cap) || cap <= 0) {
            return Optional.of(name + "spec.cpu.packagePowerCapWatts = " + cap
                    + " is not a finite number of watts > 0; the previous limit stays");
        }
        return Optional.empty();
    }

    /** The node's NodePowerProfile is gone: restore (host, JOULIE_RESTORE_ON_EXIT) or forget what was sent (http). */
    private ControlOutcome release(NodeState st, Route route) {
        ControlOutcome out;
        if (route.cpuControl() == ControlType.HTTP && st.http != null) {
            out = st.http.restore();
        } else if (st.hostTouched) {
            out = restoreHost(st);
            LOG.infof("Node %s: NodePowerProfile deleted; %s", st.node, out.message());
        } else {
            out = ControlOutcome.none(backendName(route), "nothing to undo");
        }
        return new ControlOutcome(out.backend(), out.result(), "NodePowerProfile deleted; " + out.message(), out.observed());
    }

    /**
     * Writes back the host limits found at start (RAPL and cpufreq), if JOULIE_RESTORE_ON_EXIT allows; called
     * only when this agent has written host limits for the node ({@link NodeState#hostTouched}).
     */
    private ControlOutcome restoreHost(NodeState st) {
        st.hostTouched = false;
        if (!settings.restoreOnExit()) {
            return ControlOutcome.none(HostCpuControl.POWERCAP, "limits left in place (JOULIE_RESTORE_ON_EXIT=false)");
        }
        return hostControl.restore();
    }

    private CpuControl control(NodeState st, Route route) {
        return switch (route.cpuControl()) {
            case HOST -> hostControl;
            case HTTP -> {
                if (st.http == null) {
                    st.http = new HttpCpuControl(http, st.node, route.cpuHttp(), clock);
                } else {
                    st.http.settings(route.cpuHttp());
                }
                yield st.http;
            }
            case NONE -> new NoneCpuControl();
        };
    }

    private static String backendName(Route route) {
        return switch (route.cpuControl()) {
            case HOST -> HostCpuControl.POWERCAP;
            case HTTP -> HttpCpuControl.BACKEND;
            case NONE -> NoneCpuControl.BACKEND;
        };
    }

    private Map<String, Double> observedNow(Route route) {
        return route.cpuControl() == ControlType.HOST && hostControl != null ? hostControl.observedNow() : Map.of();
    }

    /** Package power from the route's source; energy is counted as power × time since the previous reading. */
    private OptionalDouble readPower(NodeState st, Route route) {
        Instant now = clock.instant();
        OptionalDouble watts = OptionalDouble.empty();
        try {
            Source source = route.cpuSourceSpec();
            watts = switch (route.cpuSource()) {
                case HOST -> meter == null ? OptionalDouble.empty() : meter.sampleWatts();
                case HTTP -> source == null || source.http() == null ? OptionalDouble.empty()
                        : PowerTelemetry.parseHttp(PowerTelemetry.get(http,
                        HttpCpuControl.endpoint(source.http().endpoint(), st.node),
                        Objects.requireNonNullElse(source.http().timeoutSeconds(), HttpCpuControl.DEFAULT_TIMEOUT_SECONDS)));
                case PROMETHEUS -> source == null || source.prometheus() == null ? OptionalDouble.empty()
                        : PowerTelemetry.parsePrometheus(PowerTelemetry.get(http, PowerTelemetry.prometheusUrl(
                        source.prometheus().endpoint(), source.prometheus().query(), st.node), HttpCpuControl.DEFAULT_TIMEOUT_SECONDS));
                case NONE -> OptionalDouble.empty();
            };
        } catch (IOException | RuntimeException e) {
            LOG.debugf("Node %s: no package power reading (%s)", st.node, e.toString());
            metrics.error(st.node, "telemetry");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (watts.isPresent()) {
            double joules = st.lastSampleAt == null ? 0 : watts.getAsDouble() * Duration.between(st.lastSampleAt, now).toNanos() / 1e9;
            metrics.packagePower(st.node, watts.getAsDouble(), joules);
            st.lastSampleAt = now;
        } else {
            metrics.packagePower(st.node, Double.NaN, 0); // no reading: the gauge says so instead of repeating an old one
            st.lastSampleAt = null;
        }
        st.lastWatts = watts;
        return watts;
    }

    /** Writes the status when backend, result, message or the stable observed values differ from what is there. */
    private void writeStatus(NodeState st, ControlOutcome out) {
        Optional<TelemetryProfile> own = Routing.nodeScoped(view.telemetryProfiles(), st.node);
        if (!st.statusWritten && own.isPresent()) {
            TelemetryProfileStatus s = own.get().getStatus();
            if (s != null && s.control() != null && s.control().cpu() != null) {
                var c = s.control().cpu();
                st.lastStatus = StatusKey.of(c.backend(), c.result(), c.message(), c.observed());
                st.statusWritten = true;
            }
        }
        StatusKey key = StatusKey.of(out.backend(), out.result(), out.message(), out.observed());
        if (key.equals(st.lastStatus) && own.isPresent()) {
            return;
        }
        try {
            status.write(st.node, own, out);
            st.lastStatus = key;
            st.statusWritten = true;
        } catch (RuntimeException e) {
            LOG.warnf("Node %s: writing the TelemetryProfile status failed (%s); retried next reconcile", st.node, e.toString());
            metrics.error(st.node, "status");
        }
    }

    /** Node mode: puts the capability labels on the Node (JSON merge patch), once they differ; retried until done. */
    private void patchLabels() {
        if (labelsDone || capabilities == null) {
            return;
        }
        String node = settings.nodeName().orElseThrow();
        try {
            Node n = client.nodes().withName(node).get();
            if (n == null) {
                return; // not registered yet; next reconcile
            }
            Map<String, String> current = n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
            Map<String, String> wanted = capabilities.labels();
            Map<String, String> diff = new HashMap<>();
            wanted.forEach((k, v) -> {
                if (!v.equals(current.get(k))) {
                    diff.put(k, v);
                }
            });
            if (!diff.isEmpty()) {
                String patch = client.getKubernetesSerialization().asJson(Map.of("metadata", Map.of("labels", diff)));
                client.nodes().withName(node).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
                LOG.infof("Node %s: labelled %s", node, diff);
            }
            labelsDone = true;
        } catch (RuntimeException e) {
            LOG.warnf("Node %s: labelling failed (%s); retried next reconcile", node, e.toString());
            metrics.error(node, "labels");
        }
    }

    /** Readiness: the watches synced and the host was probed. */
    public boolean ready() {
        return probed && view != null && view.synced();
    }

    public boolean probed() {
        return probed;
    }

    /** The last completed periodic reconcile, or null. */
    public Instant lastPeriodic() {
        return lastPeriodic;
    }

    public Instant started() {
        return started;
    }

    public Duration interval() {
        return settings.reconcileInterval();
    }
}
