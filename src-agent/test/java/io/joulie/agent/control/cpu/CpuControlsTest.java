package io.joulie.agent.control.cpu;

import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.Observed;
import io.joulie.agent.host.Cpufreq;
import io.joulie.agent.host.KeptOriginals;
import io.joulie.agent.host.Msr;
import io.joulie.agent.host.OriginalsKind;
import io.joulie.agent.host.Powercap;
import io.joulie.agent.host.SysfsPowercap;
import io.joulie.agent.host.ffm.FfmSysfsFiles;
import io.joulie.agent.routing.Route;
import io.joulie.api.v1alpha1.ControlResult;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.ControlType;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.CpuHttpControl;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.SourceType;
import io.joulie.testkit.FakeClock;
import io.joulie.testkit.FakeHost;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

import static org.assertj.core.api.Assertions.assertThat;

class CpuControlsTest {
    @TempDir
    Path root;

    final FakeClock clock = new FakeClock();
    final HttpClient http = HttpClient.newHttpClient();
    final List<String> created = new ArrayList<>();
    final CpuControls.HttpControls httpControls = (node, settings) -> {
        created.add(node);
        return new HttpCpuControl(http, node, settings, clock);
    };

    static Route route(ControlType control, CpuHttpControl settings) {
        return new Route(control, settings, SourceType.HOST, null, "", "");
    }

    HostCpuControl host() throws IOException {
        FakeHost.intelNode(root, 2, 250);
        Powercap powercap = SysfsPowercap.open(root.resolve("sys"), new FfmSysfsFiles(), Msr.absent());
        return new HostCpuControl(powercap, Cpufreq.absent(), KeptOriginals.inMemory(OriginalsKind.CPU), clock);
    }

    @Test
    void eachRouteGetsItsControlAndANodeKeepsItsHttpControl() throws IOException {
        HostCpuControl host = host();
        CpuControls controls = new CpuControls(host, httpControls, true);
        assertThat(controls.hostAvailable()).isTrue();
        assertThat(controls.control("a", route(ControlType.HOST, null))).isSameAs(host);
        assertThat(controls.control("a", route(ControlType.NONE, null))).isInstanceOf(NoneCpuControl.class);

        CpuControl first = controls.control("a", route(ControlType.HTTP, new CpuHttpControl("http://x/{node}", 1, null)));
        CpuControl again = controls.control("a", route(ControlType.HTTP, null));
        assertThat(again).isSameAs(first);
        assertThat(controls.http("a")).containsSame((HttpCpuControl) first);
        // the route's current settings: the endpoint went away, so the request is blocked instead of sent
        assertThat(again.enforce(100, OptionalDouble.empty()).message()).isEqualTo("controls.cpu.http.endpoint is not set");
        controls.control("b", route(ControlType.HTTP, null));
        assertThat(created).containsExactly("a", "b");

        controls.forget("a");
        assertThat(controls.http("a")).isEmpty();
        controls.control("a", route(ControlType.HTTP, null));
        assertThat(created).containsExactly("a", "b", "a");
    }

    @Test
    void theBackendAndWhatIsInForceAreReportedWithoutActing() throws IOException {
        CpuControls controls = new CpuControls(host(), httpControls, true);
        assertThat(controls.backend(route(ControlType.HOST, null))).isEqualTo(CpuBackend.POWERCAP);
        assertThat(controls.backend(route(ControlType.HTTP, null))).isEqualTo(CpuBackend.HTTP);
        assertThat(controls.backend(route(ControlType.NONE, null))).isEqualTo(CpuBackend.NONE);
        assertThat(controls.observedNow(route(ControlType.HOST, null))).containsEntry(Observed.CAP_WATTS_PER_PACKAGE, 200.0)
                .containsEntry(Observed.PACKAGES, 2.0);
        assertThat(controls.observedNow(route(ControlType.NONE, null))).isEmpty();
    }

    @Test
    void theHostLimitsComeBackOnlyIfRestoreOnExitAllows() throws IOException {
        FakeHost fake = FakeHost.intelNode(root, 2, 250);
        Powercap keptLimits = SysfsPowercap.open(root.resolve("sys"), new FfmSysfsFiles(), Msr.absent());
        CpuControls keep = new CpuControls(new HostCpuControl(keptLimits, Cpufreq.absent(), KeptOriginals.inMemory(OriginalsKind.CPU), clock),
                httpControls, false);
        keep.control("a", route(ControlType.HOST, null)).enforce(240, OptionalDouble.empty());
        ControlOutcome kept = keep.restoreHost();
        assertThat(kept.result()).isEqualTo(ControlResult.NONE);
        assertThat(kept.message()).isEqualTo("limits left in place (JOULIE_RESTORE_ON_EXIT=false)");
        assertThat(keep.restoreOnExit()).isEmpty();
        assertThat(fake.limit(0)).isEqualTo("120000000");

        Powercap restored = SysfsPowercap.open(root.resolve("sys"), new FfmSysfsFiles(), Msr.absent());
        CpuControls restore = new CpuControls(new HostCpuControl(restored, Cpufreq.absent(),
                KeptOriginals.inMemory(OriginalsKind.CPU), clock), httpControls, true);
        restore.control("a", route(ControlType.HOST, null)).enforce(300, OptionalDouble.empty());
        assertThat(fake.limit(0)).isEqualTo("150000000");
        assertThat(restore.restoreOnExit()).hasValueSatisfying(r -> assertThat(r.result()).isEqualTo(ControlResult.RESTORED));
        // what this instance found at start: the 120 W the other one left
        assertThat(fake.limit(0)).isEqualTo("120000000");
    }

    @Test
    void withoutHostAccessThereIsNothingToRestoreAtExit() {
        CpuControls pool = new CpuControls(null, httpControls, true);
        assertThat(pool.hostAvailable()).isFalse();
        assertThat(pool.restoreOnExit()).isEmpty();
        assertThat(pool.hostRewrites()).isZero();
        assertThat(pool.observedNow(route(ControlType.HOST, null))).isEmpty();
    }
}
