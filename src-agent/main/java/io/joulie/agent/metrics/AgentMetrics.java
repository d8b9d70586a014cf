package io.joulie.agent.metrics;

import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.Observed;
import io.joulie.agent.control.cpu.CpuBackend;
import io.joulie.agent.control.gpu.GpuBackend;
import io.joulie.api.BuildInfo;
import io.joulie.api.v1alpha1.ControlResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The agent's Prometheus metrics, all tagged {@code node} (docs/agent.md). Micrometer names map to
 * Prometheus names: {@code joulie.agent.actions} → {@code joulie_agent_actions_total}, and so on.
 */
@ApplicationScoped
public class AgentMetrics {
    static final String PREFIX = "joulie.agent.";
    private final AtomicLong lastReconcile = new AtomicLong();

    private final MeterRegistry registry;
    private final Map<String, NodeGauges> nodes = new ConcurrentHashMap<>();
    private final Map<String, GpuGauges> gpus = new ConcurrentHashMap<>();

    /** The per-node values the gauges read. */
    static final class NodeGauges {
        volatile double throttleRatio;
        volatile String backend = "";
        volatile String gpuBackend = "";
    }

    /** The energy counter's last value of a GPU board (to count its increase). */
    static final class GpuGauges {
        double lastEnergyJoules = Double.NaN;
    }

    /**
     * Gauges of values that may be unknown (not read yet, or the last read failed): the series exists while the value
     * is known and is removed while it is not, never a NaN or -1 sentinel (decision 203).
     */
    private final Map<Meter.Id, Known> known = new ConcurrentHashMap<>();

    /** A gauge of a value that is known, and the value it reads. */
    private record Known(AtomicReference<Double> value, Gauge gauge) {
    }

    private void known(String name, String description, Tags tags, OptionalDouble value) {
        Meter.Id id = new Meter.Id(PREFIX + name, tags, null, description, Meter.Type.GAUGE);
        if (value.isEmpty() || !Double.isFinite(value.getAsDouble())) {
            Known gone = known.remove(id);
            if (gone != null) {
                registry.remove(gone.gauge());
            }
            return;
        }
        known.computeIfAbsent(id, k -> {
            AtomicReference<Double> ref = new AtomicReference<>(value.getAsDouble());
            return new Known(ref, Gauge.builder(k.getName(), ref, AtomicReference::get).description(description).tags(tags)
                    .register(registry));
        }).value().set(value.getAsDouble());
    }

    public AgentMetrics(MeterRegistry registry) {
        this.registry = registry;
        registry.gauge(PREFIX + "last.reconcile.timestamp.seconds", Tags.empty(), lastReconcile);
        BuildInfo build = BuildInfo.current();
        Gauge.builder(PREFIX + "build.info", () -> 1).description("The build this agent runs (value 1)")
                .tags("version", build.version(), "revision", build.revision()).register(registry);
    }

    /** Removes this instance's meters so that a restarted application registers fresh ones (as the operator does). */
    @PreDestroy
    void close() {
        known.clear();
        registry.getMeters().stream().filter(m -> m.getId().getName().startsWith(PREFIX)).toList().forEach(registry::remove);
    }

    private NodeGauges gauges(String node) {
        return nodes.computeIfAbsent(node, n -> {
            NodeGauges g = new NodeGauges();
            Tags tags = Tags.of("node", n);
            Gauge.builder(PREFIX + "throttle.ratio", g, x -> x.throttleRatio)
                    .description("DVFS throttle: share (0-1) of cpufreq policies held at their minimum").tags(tags).register(registry);
            for (CpuBackend b : CpuBackend.values()) {
                Gauge.builder(PREFIX + "backend", g, x -> b.label().equals(x.backend) ? 1 : 0)
                        .description("1 for the backend that acted last on the node").tags(tags.and("backend", b.label())).register(registry);
            }
            for (GpuBackend b : GpuBackend.values()) {
                Gauge.builder(PREFIX + "gpu.backend", g, x -> b.label().equals(x.gpuBackend) ? 1 : 0)
                        .description("1 for the GPU backend that acted last on the node").tags(tags.and("backend", b.label()))
                        .register(registry);
            }
            // At 0 from the start, so that the first failure shows as an increase() to the alerts and the first
            // joules to rate(): a counter born at its first increment loses that increment to both.
            energyCounter(n);
            for (ErrorKind kind : ErrorKind.values()) {
                registry.counter(PREFIX + "errors", tags.and("kind", kind.label()));
            }
            return g;
        });
    }

    public void packagePower(String node, double watts, double joules) {
        gauges(node);
        known("package.power.watts", "CPU package power of the node (sum over packages)", Tags.of("node", node),
                OptionalDouble.of(watts));
        if (joules > 0) {
            energyCounter(node).increment(joules);
        }
    }

    private Counter energyCounter(String node) {
        return Counter.builder(PREFIX + "package.energy.joules").description("CPU package energy consumed")
                .tags("node", node).register(registry);
    }

    /**
     * What a control action did: the backend that acted, the cap per package and the throttle it reports, the
     * action counted under {@code kind} (none: a periodic check that changed nothing), an error when it failed.
     */
    public void outcome(String node, Optional<Action> kind, ControlOutcome out) {
        NodeGauges g = gauges(node);
        g.backend = out.backend().label();
        Double perPackage = out.observed().get(Observed.CAP_WATTS_PER_PACKAGE);
        if (perPackage != null) {
            known("cap.per.package.watts", "long_term power limit in force per package, as read back", Tags.of("node", node),
                    OptionalDouble.of(perPackage));
        }
        g.throttleRatio = out.observed().getOrDefault(Observed.THROTTLE_PCT, 0.0) / 100;
        kind.ifPresent(k -> registry.counter(PREFIX + "actions", "node", node, "kind", k.label(), "backend", out.backend().label(),
                "result", out.result().name().toLowerCase(Locale.ROOT)).increment());
        if (out.result() == ControlResult.ERROR) {
            error(node, ErrorKind.CONTROL);
        }
    }

    /**
     * What a GPU control action did: the backend that acted, the action counted under {@code kind} (none: a periodic
     * check that changed nothing), an error when it failed.
     */
    public void gpuOutcome(String node, Optional<Action> kind, ControlOutcome out) {
        gauges(node).gpuBackend = out.backend().label();
        kind.ifPresent(k -> registry.counter(PREFIX + "gpu.actions", "node", node, "kind", k.label(), "backend", out.backend().label(),
                "result", out.result().name().toLowerCase(Locale.ROOT)).increment());
        if (out.result() == ControlResult.ERROR) {
            error(node, ErrorKind.CONTROL);
        }
    }

    /**
     * One GPU board read: its power limit and power draw (gauges, without a series while not read), and the increase of its energy
     * counter since the last reading (a counter that went back, after a driver reload, starts counting again).
     */
    public void gpu(String node, int index, OptionalDouble capWatts, OptionalDouble powerWatts, OptionalDouble energyJoules) {
        String gpu = Integer.toString(index);
        GpuGauges g = gpus.computeIfAbsent(node + "/" + gpu, k -> {
            gpuEnergyCounter(node, gpu); // at 0 from the first reading, as the package's (see gauges)
            return new GpuGauges();
        });
        Tags tags = Tags.of("node", node, "gpu", gpu);
        known("gpu.power.watts", "Power drawn by a GPU board", tags, powerWatts);
        known("gpu.cap.watts", "Power limit in force on a GPU board, as read back", tags, capWatts);
        if (energyJoules.isPresent()) {
            double now = energyJoules.getAsDouble();
            if (now > g.lastEnergyJoules) {
                gpuEnergyCounter(node, gpu).increment(now - g.lastEnergyJoules);
            }
            g.lastEnergyJoules = now;
        }
    }

    private Counter gpuEnergyCounter(String node, String gpu) {
        return Counter.builder(PREFIX + "gpu.energy.joules").description("Energy consumed by a GPU board")
                .tags("node", node, "gpu", gpu).register(registry);
    }

    public void error(String node, ErrorKind kind) {
        registry.counter(PREFIX + "errors", "node", node, "kind", kind.label()).increment();
    }

    public Timer applyTimer(String node) {
        return Timer.builder(PREFIX + "apply.duration").description("Duration of one control action on a node")
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofNanos(100_000))
                .maximumExpectedValue(Duration.ofSeconds(30)).tags("node", node).register(registry);
    }

    /** One gauge per capability label, value 1, tagged with the label's name and value. */
    public void capabilities(String node, Map<String, String> labels) {
        labels.forEach((k, v) -> Gauge.builder(PREFIX + "capability", () -> 1)
                .description("Hardware capability found by the start-up probe (feature.joulie.io labels)")
                .tags("node", node, "feature", k.substring(k.indexOf('/') + 1), "value", v).register(registry));
    }

    public void lastReconcile(long epochSeconds) {
        lastReconcile.set(epochSeconds);
    }

    /** Drops a node's meters (a pool agent no longer serves it). */
    public void forget(String node) {
        nodes.remove(node);
        known.keySet().removeIf(id -> node.equals(id.getTag("node")));
        gpus.keySet().removeIf(k -> k.startsWith(node + "/"));
        for (Meter m : registry.getMeters()) {
            if (m.getId().getName().startsWith(PREFIX) && node.equals(m.getId().getTag("node"))) {
                registry.remove(m);
            }
        }
    }
}
