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

import static org.assertj.core.api.Assertions.assertThat;

class PowerReaderTest {
    @TempDir
    Path root;

    final FakeClock clock = new FakeClock();
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final AgentMetrics metrics = new AgentMetrics(registry);
    final List<String> fetched = new ArrayList<>();
    String answer = "{\"packagePowerWatts\": 180}";
    final PowerReader.Fetch fetch = (url, timeout) -> {
        fetched.add(url + " " + timeout);
        if (answer == null) {
            throw new IOException("GET " + url + " answered HTTP 503");
        }
        return answer;
    };

    static Route source(SourceType type, Source spec) {
        return new Route(ControlType.NONE, null, type, spec, "", "");
    }

    double gauge(String node) {
        return registry.get("joulie.agent.package.power.watts").tag("node", node).gauge().value();
    }

    double energy(String node) {
        var counter = registry.find("joulie.agent.package.energy.joules").tag("node", node).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void theHostsEnergyCountersGivePowerAndEnergyOverTheTimeBetweenReadings() throws IOException {
        FakeHost host = FakeHost.intelNode(root, 2, 250);
        try (Powercap powercap = SysfsPowercap.open(root.resolve("sys"), new FfmSysfsFiles(), Msr.absent())) {
            PowerReader reader = new PowerReader(new PackagePowerMeter(powercap, clock), fetch, metrics, clock);
            Route hostSource = source(SourceType.HOST, null);
            assertThat(reader.read("a", hostSource, true)).isEmpty();
            assertThat(gauge("a")).isNaN();

            host.addEnergy(50_000_000);
            clock.advance(Duration.ofSeconds(2));
            assertThat(reader.read("a", hostSource, false)).hasValue(50.0); // 100 J in 2 s; the host is read on events too
            assertThat(energy("a")).isZero(); // no earlier reading to count from

            host.addEnergy(30_000_000);
            clock.advance(Duration.ofSeconds(3));
            assertThat(reader.read("a", hostSource, true)).hasValue(20.0);
            assertThat(energy("a")).isEqualTo(60.0); // 20 W for 3 s
        }
    }

    @Test
    void aRemoteSourceIsReadOnPeriodicReconcilesAndEventsReuseTheLastReading() {
        PowerReader reader = new PowerReader(null, fetch, metrics, clock);
        Route http = source(SourceType.HTTP, new Source(SourceType.HTTP, new HttpEndpoint("http://sim/power/{node}", 2), null));
        assertThat(reader.read("sim-1", http, false)).hasValue(180.0);
        answer = "{\"packagePowerWatts\": 150}";
        clock.advance(Duration.ofSeconds(1));
        assertThat(reader.read("sim-1", http, false)).hasValue(180.0);
        assertThat(fetched).containsExactly("http://sim/power/sim-1 2");
        assertThat(reader.read("sim-1", http, true)).hasValue(150.0);
        assertThat(energy("sim-1")).isEqualTo(150.0);

        Route prometheus = source(SourceType.PROMETHEUS, new Source(SourceType.PROMETHEUS, null,
                new PrometheusSource("http://prom:9090/", "power{node=\"{node}\"}")));
        answer = "{\"data\":{\"result\":[{\"value\":[1,\"95.5\"]}]}}";
        assertThat(reader.read("sim-2", prometheus, true)).hasValue(95.5);
        assertThat(fetched.getLast()).isEqualTo("http://prom:9090/api/v1/query?query=power%7Bnode%3D%22sim-2%22%7D 5");
    }

    @Test
    void noReadingLeavesTheGaugeAtNaNCountsATelemetryErrorAndCountsNoEnergy() {
        PowerReader reader = new PowerReader(null, fetch, metrics, clock);
        Route http = source(SourceType.HTTP, new Source(SourceType.HTTP, new HttpEndpoint("http://sim/{node}", null), null));
        reader.read("sim-1", http, true);
        answer = null;
        clock.advance(Duration.ofSeconds(1));
        assertThat(reader.read("sim-1", http, true)).isEmpty();
        assertThat(gauge("sim-1")).isNaN();
        assertThat(registry.get("joulie.agent.errors").tags("node", "sim-1", "kind", "telemetry").counter().count()).isEqualTo(1);
        assertThat(fetched.getLast()).endsWith(" 5");

        answer = "{\"packagePowerWatts\": 100}";
        clock.advance(Duration.ofSeconds(1));
        assertThat(reader.read("sim-1", http, false)).hasValue(100.0); // no last reading: an event reads the source
        assertThat(energy("sim-1")).isZero(); // the reading before was none: nothing to count from
    }

    /** A value no node's CPU packages can draw is refused, counted and explained, never handed to the control loops. */
    @Test
    void aReadingAboveThePhysicalBoundIsRefusedWithTheReason() {
        PowerReader reader = new PowerReader(null, fetch, metrics, clock);
        Route http = source(SourceType.HTTP, new Source(SourceType.HTTP, new HttpEndpoint("http://hw/{node}", 2), null));
        answer = "{\"packagePowerWatts\": 99999}";
        assertThat(reader.read("n1", http, true)).isEmpty();
        assertThat(reader.refusal("n1")).contains("package power reading 99999.0 W from the http source refused: above the "
                + "physical bound of 10000 W");
        assertThat(Double.isNaN(gauge("n1"))).isTrue();
        assertThat(registry.get("joulie.agent.errors").tag("node", "n1").tag("kind", "telemetry").counter().count()).isEqualTo(1);

        answer = "{\"packagePowerWatts\": 9999}";
        assertThat(reader.read("n1", http, true)).hasValue(9999);
        assertThat(reader.refusal("n1")).isEmpty();
    }
}
