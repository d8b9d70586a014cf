package io.joulie.agent.runtime;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.joulie.agent.config.AgentMode;
import io.joulie.agent.config.AgentSettings;
import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.Controls;
import io.joulie.agent.control.Family;
import io.joulie.agent.control.cpu.CpuControls;
import io.joulie.agent.control.cpu.HostCpuControl;
import io.joulie.agent.control.cpu.HttpCpuControl;
import io.joulie.agent.control.gpu.GpuControls;
import io.joulie.agent.control.gpu.HostGpuControl;
import io.joulie.agent.control.gpu.HttpGpuControl;
import io.joulie.agent.host.CpuOriginals;
import io.joulie.agent.host.Gpus;
import io.joulie.agent.host.Host;
import io.joulie.agent.host.HostCapabilities;
import io.joulie.agent.host.KeptOriginals;
import io.joulie.agent.inventory.HostInventory;
import io.joulie.agent.inventory.Inventory;
import io.joulie.agent.k8s.AnswerClient;
import io.joulie.agent.k8s.HardwarePublisher;
import io.joulie.agent.k8s.HardwareWriter;
import io.joulie.agent.k8s.InformerView;
import io.joulie.agent.k8s.NodeEvents;
import io.joulie.agent.k8s.NodeLabeller;
import io.joulie.agent.k8s.StatusPublisher;
import io.joulie.agent.k8s.StatusWriter;
import io.joulie.agent.metrics.AgentMetrics;
import io.joulie.agent.power.NodeTelemetry;
import io.joulie.agent.power.PackagePowerMeter;
import io.joulie.agent.power.PowerTelemetry;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import org.jboss.logging.Logger;

import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

/**
 * The agent's lifecycle. At start it probes the host (node mode), puts the {@link AgentLoop} together (the
 * {@link NodeReconciler} over the route's controls, the power reader and the status publisher) on one worker
 * thread, and starts the watches, whose events feed the loop. At shutdown it stops the watches and the worker,
 * then writes back the host limits found at start (JOULIE_RESTORE_ON_EXIT) and says so in the node's NodePowerProfile.
 */
@ApplicationScoped
public class NodeAgent {
    private static final Logger LOG = Logger.getLogger(NodeAgent.class);

    private final KubernetesClient client;
    private final AgentSettings settings;
    private final AgentMetrics metrics;
    private final Clock clock;
    private final Instance<Host> hosts;
    private final Instance<KeptOriginals<CpuOriginals>> originals;
    private final HttpClient http;
    private volatile boolean probed;
    private volatile Instant started;
    private InformerView view;
    private CpuControls cpuControls;
    private GpuControls gpuControls;
    private AgentLoop loop;
    private Thread worker;
    private StatusPublisher status;
    /** The worker's writes: no retries, a short timeout ({@link AnswerClient}). */
    private KubernetesClient answers;

    public NodeAgent(KubernetesClient client, AgentSettings settings, AgentMetrics metrics, Clock clock, Instance<Host> hosts,
                     Instance<KeptOriginals<CpuOriginals>> originals, HttpClient http) {
        this.client = client;
        this.settings = settings;
        this.metrics = metrics;
        this.clock = clock;
        this.hosts = hosts;
        this.originals = originals;
        this.http = http;
    }

    void start(@Observes StartupEvent ev) {
        started = clock.instant();
        HostCpuControl hostControl = null;
        HostGpuControl hostGpuControl = null;
        PackagePowerMeter meter = null;
        Gpus hostGpus = null;
        Inventory inventory = Inventory.remote();
        Optional<NodeLabeller> labeller = Optional.empty();
        answers = AnswerClient.of(client);
        NodeEvents events = new NodeEvents(answers, clock, metrics);
        if (settings.mode() == AgentMode.NODE) {
            String node = settings.nodeName().orElseThrow();
            Host host = hosts.get();
            hostControl = new HostCpuControl(host.powercap(), host.cpufreq(), originals.get(), clock);
            hostGpus = host.gpus();
            hostGpuControl = new HostGpuControl(hostGpus);
            meter = new PackagePowerMeter(host.powercap(), clock);
            HostCapabilities capabilities = host.capabilities();
            inventory = new HostInventory(host, capabilities.raplWritable());
            metrics.capabilities(node, capabilities.labels());
            labeller = Optional.of(new NodeLabeller(node, capabilities.labels(), NodeLabeller.Nodes.of(answers), metrics));
            LOG.infof("Node %s: %d RAPL packages, %d cpufreq policies, %d GPU boards%s, capabilities %s", node,
                    host.powercap().packages().size(), host.cpufreq().policies().size(), hostGpus.boards().size(),
                    hostGpus.unavailable().map(why -> " (" + why + ")").orElse(""), capabilities.labels());
            host.msr().unavailable().ifPresent(why -> events.record(node, NodeEvents.Reason.MsrUnavailable, why));
        }
        probed = true;
        view = new InformerView(client);
        cpuControls = new CpuControls(hostControl, (node, s) -> new HttpCpuControl(http, node, s, clock), settings.restoreOnExit());
        gpuControls = new GpuControls(hostGpuControl, (node, s) -> new HttpGpuControl(http, node, s, clock), settings.restoreOnExit());
        NodeTelemetry.Fetch fetch = (url, timeout) -> PowerTelemetry.get(http, url, timeout);
        NodeReconciler reconciler = new NodeReconciler(new ServedNodes(settings, view), view, cpuControls, gpuControls,
                new NodeTelemetry(meter, hostGpus, fetch, metrics, clock),
                status = new StatusPublisher(new StatusWriter(answers, clock), events, metrics),
                new HardwarePublisher(inventory, new HardwareWriter(answers, clock), metrics), metrics);
        loop = new AgentLoop(new WorkQueue<>(System::nanoTime), reconciler, labeller, metrics, clock, settings.reconcileInterval());
        worker = Thread.ofPlatform().name("joulie-agent").daemon().start(loop::run);
        view.start(settings.mode() == AgentMode.NODE ? settings.nodeName() : Optional.empty(), loop::nodeChanged, loop::everyNodeChanged)
                .thenRun(loop::watchesSynced);
    }

    void stop(@Observes ShutdownEvent ev) {
        Optional<String> node = settings.mode() == AgentMode.NODE ? settings.nodeName() : Optional.empty();
        Optional<NodePowerProfile> profile = view == null ? Optional.empty() : node.flatMap(view::profileFor);
        if (view != null) {
            view.stop();
        }
        if (worker != null) {
            loop.stop();
            worker.interrupt();
            try {
                worker.join(Duration.ofSeconds(10));
                if (worker.isAlive()) {
                    LOG.warn("The agent worker did not stop within 10 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        Map<Family, ControlOutcome> restored = new EnumMap<>(Family.class);
        for (Controls<?, ?, ?> controls : new Controls<?, ?, ?>[]{cpuControls, gpuControls}) {
            if (controls != null) {
                controls.restoreOnExit().ifPresent(out -> {
                    LOG.infof("Shutdown: %s (%s)", out.message(), out.result());
                    restored.put(controls.family(), out.withMessage("agent stopped; " + out.message()));
                });
            }
        }
        // the node's answer says the limits found at start are back, so that the operator does not count on its cap
        if (node.isPresent() && status != null) {
            if (profile.isEmpty() && !restored.isEmpty() && answers != null) {
                profile = readProfile(node.get()); // stopped before its watch had delivered the profile
            }
            status.publish(node.get(), profile, restored);
        }
        if (answers != null) {
            answers.close();
        }
    }

    /**
     * The node's NodePowerProfile read from the API server (one request, {@link AnswerClient}'s timeout), for an agent
     * stopped before its watch delivered it; empty when there is none or it cannot be read.
     */
    private Optional<NodePowerProfile> readProfile(String node) {
        try {
            return Optional.ofNullable(answers.resources(NodePowerProfile.class)
                    .withName(io.joulie.api.v1alpha1.JoulieApi.nodePowerProfileName(node)).get());
        } catch (RuntimeException e) {
            LOG.warnf("Shutdown: the NodePowerProfile of %s could not be read to answer the restore: %s", node, e.getMessage());
            return Optional.empty();
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
        return loop == null ? null : loop.lastPeriodic();
    }

    public Instant started() {
        return started;
    }

    public Duration interval() {
        return settings.reconcileInterval();
    }
}
