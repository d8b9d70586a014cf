package io.joulie.agent.power;

import io.joulie.agent.host.Msr;
import io.joulie.agent.host.Powercap;
import io.joulie.agent.host.SysfsPowercap;
import io.joulie.agent.host.ffm.FfmSysfsFiles;
import io.joulie.agent.metrics.AgentMetrics;
import io.joulie.agent.routing.Route;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.ControlType;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.HttpEndpoint;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.PrometheusSource;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.Source;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.SourceType;
import io.joulie.testkit.FakeClock;
import io.joulie.testkit.FakeHost;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

import static org.assertj.core.api.Assertions.assertThat;

/** A node's telemetry: package power and energy, remote GPU boards and hardware, one GET per endpoint and pass. */
class NodeTelemetryTest {
    @TempDir
    Path root;

    final FakeClock clock = new FakeClock();
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final AgentMetrics metrics = new AgentMetrics(registry);
    final List<String> fetched = new ArrayList<>();
    String answer = "{\"packagePowerWatts\": 180}";
    final NodeTelemetry.Fetch fetch = (url, timeout) -> {
        fetched.add(url + " " + timeout);
        if (answer == null) {
            throw new IOException("GET " + url + " answered HTTP 503");
        }
        return answer;
    };

    static Route source(SourceType type, Source spec) {
        return new Route(ControlType.NONE, null, type, spec, "", "");
    }

    static OptionalDouble watts(NodeTelemetry reader, String node, Route route, boolean periodic) {
        return reader.read(node, route, periodic).packageWatts();
    }

    /** The node's power gauge; empty while it has no series (no reading: no NaN sentinel, decision 203). */
    OptionalDouble gauge(String node) {
        var g = registry.find("joulie.agent.package.power.watts").tag("node", node).gauge();
        return g == null ? OptionalDouble.empty() : OptionalDouble.of(g.value());
    }

    double energy(String node) {
        var counter = registry.find("joulie.agent.package.energy.joules").tag("node", node).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void theHostsEnergyCountersGivePowerAndEnergyOverTheTimeBetweenReadings() throws IOException {
        FakeHost host = FakeHost.intelNode(root, 2, 250);
        try (Powercap powercap = SysfsPowercap.open(root.resolve("sys"), new FfmSysfsFiles(), Msr.absent())) {
            NodeTelemetry reader = new NodeTelemetry(new PackagePowerMeter(powercap, clock), null, fetch, metrics, clock);
            Route hostSource = source(SourceType.HOST, null);
            assertThat(watts(reader, "a", hostSource, true)).isEmpty();
            assertThat(gauge("a")).isEmpty();

            host.addEnergy(50_000_000);
            clock.advance(Duration.ofSeconds(2));
            assertThat(watts(reader, "a", hostSource, false)).hasValue(50.0); // 100 J in 2 s; the host is read on events too
            assertThat(gauge("a")).hasValue(50.0);
            assertThat(energy("a")).isZero(); // no earlier reading to count from

            host.addEnergy(30_000_000);
            clock.advance(Duration.ofSeconds(3));
            assertThat(watts(reader, "a", hostSource, true)).hasValue(20.0);
            assertThat(energy("a")).isEqualTo(60.0); // 20 W for 3 s
        }
    }

    @Test
    void aRemoteSourceIsReadOnPeriodicReconcilesAndEventsReuseTheLastReading() {
        NodeTelemetry reader = new NodeTelemetry(null, null, fetch, metrics, clock);
        Route http = source(SourceType.HTTP, new Source(SourceType.HTTP, new HttpEndpoint("http://sim/power/{node}", 2), null));
        assertThat(watts(reader, "sim-1", http, false)).hasValue(180.0);
        answer = "{\"packagePowerWatts\": 150}";
        clock.advance(Duration.ofSeconds(1));
        assertThat(watts(reader, "sim-1", http, false)).hasValue(180.0);
        assertThat(fetched).containsExactly("http://sim/power/sim-1 2");
        assertThat(watts(reader, "sim-1", http, true)).hasValue(150.0);
        assertThat(energy("sim-1")).isEqualTo(150.0);

        Route prometheus = source(SourceType.PROMETHEUS, new Source(SourceType.PROMETHEUS, null,
                new PrometheusSource("http://prom:9090/", "power{node=\"{node}\"}")));
        answer = "{\"data\":{\"result\":[{\"value\":[1,\"95.5\"]}]}}";
        assertThat(watts(reader, "sim-2", prometheus, true)).hasValue(95.5);
        assertThat(fetched.getLast()).isEqualTo("http://prom:9090/api/v1/query?query=power%7Bnode%3D%22sim-2%22%7D 5");
    }

    @Test
    void noReadingRemovesTheGaugeCountsATelemetryErrorAndCountsNoEnergy() {
        NodeTelemetry reader = new NodeTelemetry(null, null, fetch, metrics, clock);
        Route http = source(SourceType.HTTP, new Source(SourceType.HTTP, new HttpEndpoint("http://sim/{node}", null), null));
        watts(reader, "sim-1", http, true);
        assertThat(gauge("sim-1")).isPresent();
        answer = null;
        clock.advance(Duration.ofSeconds(1));
        assertThat(watts(reader, "sim-1", http, true)).isEmpty();
        assertThat(gauge("sim-1")).as("a failed reading: the series goes, no NaN").isEmpty();
        assertThat(registry.get("joulie.agent.errors").tags("node", "sim-1", "kind", "telemetry").counter().count()).isEqualTo(1);
        assertThat(fetched.getLast()).endsWith(" 5");

        answer = "{\"packagePowerWatts\": 100}";
        clock.advance(Duration.ofSeconds(1));
        assertThat(watts(reader, "sim-1", http, false)).hasValue(100.0); // no last reading: an event reads the source
        assertThat(energy("sim-1")).isZero(); // the reading before was none: nothing to count from
    }

    /** A value no node's CPU packages can draw is refused, counted and explained, never handed to the control loops. */
    @Test
    void aReadingAboveThePhysicalBoundIsRefusedWithTheReason() {
        NodeTelemetry reader = new NodeTelemetry(null, null, fetch, metrics, clock);
        Route http = source(SourceType.HTTP, new Source(SourceType.HTTP, new HttpEndpoint("http://hw/{node}", 2), null));
        answer = "{\"packagePowerWatts\": 99999}";
        NodeTelemetry.Reading refused = reader.read("n1", http, true);
        assertThat(refused.packageWatts()).isEmpty();
        assertThat(refused.refusal()).contains("package power reading 99999.0 W from the http source refused: above the "
                + "physical bound of 10000 W");
        assertThat(gauge("n1")).isEmpty();
        assertThat(registry.get("joulie.agent.errors").tag("node", "n1").tag("kind", "telemetry").counter().count()).isEqualTo(1);

        answer = "{\"packagePowerWatts\": 9999}";
        NodeTelemetry.Reading plausible = reader.read("n1", http, true);
        assertThat(plausible.packageWatts()).hasValue(9999);
        assertThat(plausible.refusal()).isEmpty();
    }

    /**
     * A node whose CPU and GPU sources are the same endpoint (the twin's cluster mode) costs one GET per pass, whose
     * answer gives the package power, the boards and the hardware; another endpoint is asked apart.
     */
    @Test
    void oneEndpointServingBothFamiliesIsAskedOncePerPass() {
        NodeTelemetry reader = new NodeTelemetry(null, null, fetch, metrics, clock);
        Source telemetry = new Source(SourceType.HTTP, new HttpEndpoint("http://twin/telemetry/{node}", 2), null);
        Route both = new Route(ControlType.NONE, null, SourceType.HTTP, telemetry, "", "",
                new Route.GpuRoute(ControlType.NONE, null, SourceType.HTTP, telemetry));
        answer = "{\"packagePowerWatts\": 180, \"gpu\": {\"devices\": [{\"index\": 0, \"name\": \"sim-H100\", \"capWatts\": 700, "
                + "\"powerWatts\": 300, \"energyJoules\": 5}]}, \"hardware\": {\"gpu\": {\"model\": \"sim-H100\", \"count\": 1}}}";

        NodeTelemetry.Reading read = reader.read("sim-1", both, true);

        assertThat(fetched).containsExactly("http://twin/telemetry/sim-1 2");
        assertThat(read.packageWatts()).hasValue(180.0);
        assertThat(read.boards()).singleElement().satisfies(b -> {
            assertThat(b.name()).isEqualTo("sim-H100");
            assertThat(b.powerWatts()).hasValue(300.0);
        });
        assertThat(read.hardware()).hasValueSatisfying(h -> assertThat(h.gpu().count()).isEqualTo(1));

        reader.read("sim-1", both, false);
        assertThat(fetched).as("an event reuses both readings").hasSize(1);
        reader.read("sim-1", both, true);
        assertThat(fetched).as("the next periodic pass asks once again").hasSize(2);

        answer = null;
        reader.read("sim-1", both, true);
        assertThat(fetched).as("a failed GET is not repeated in the pass").hasSize(3);
        assertThat(registry.get("joulie.agent.errors").tags("node", "sim-1", "kind", "telemetry").counter().count())
                .as("each family counts its missing reading").isEqualTo(2);

        answer = "{\"packagePowerWatts\": 150}";
        Route apart = new Route(ControlType.NONE, null, SourceType.HTTP, telemetry, "", "", new Route.GpuRoute(ControlType.NONE, null,
                SourceType.HTTP, new Source(SourceType.HTTP, new HttpEndpoint("http://gpus/{node}", 3), null)));
        reader.read("sim-1", apart, true);
        assertThat(fetched.subList(3, fetched.size())).containsExactly("http://twin/telemetry/sim-1 2", "http://gpus/sim-1 3");
    }
}
