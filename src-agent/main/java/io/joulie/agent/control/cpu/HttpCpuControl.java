package io.joulie.agent.control.cpu;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.HttpAction;
import io.joulie.agent.control.NodeFacts;
import io.joulie.agent.control.Observed;
import io.joulie.agent.control.RemoteCaps;
import io.joulie.agent.host.CapRequest;
import io.joulie.agent.host.Cpufreq;
import io.joulie.agent.host.CpufreqPolicy;
import io.joulie.agent.routing.NodeEndpoint;
import io.joulie.api.v1alpha1.ControlResult;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.CpuControlMode;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.CpuHttpControl;

import java.io.IOException;
import java.net.http.HttpClient;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * HTTP control: {@code POST {endpoint}} ({@code {node}} replaced by the node name) with
 * {@code {"node","action","capWatts","throttlePct","ts"}} through an {@link HttpAction}. Mode auto and rapl send
 * {@code rapl.set_power_cap_watts}; dvfs sends {@code dvfs.set_throttle_pct} with the throttle of a
 * {@link DvfsController} fed by the node's package power readings. A percent cap is sent as the watts it means on the
 * node's packages as its telemetry describes them ({@link RemoteCaps}); without them it is blocked.
 */
public final class HttpCpuControl implements CpuControl {
    public static final String RAPL_ACTION = "rapl.set_power_cap_watts";
    public static final String DVFS_ACTION = "dvfs.set_throttle_pct";

    private final String node;
    private final HttpAction action;
    private final DvfsController dvfs;
    private CpuHttpControl settings;

    public HttpCpuControl(HttpClient http, String node, CpuHttpControl settings, InstantSource clock) {
        this.node = node;
        this.settings = settings;
        this.action = new HttpAction(http, node, clock);
        this.dvfs = new DvfsController(new VirtualCpufreq(), clock);
    }

    /** Follows a TelemetryProfile change; a different endpoint or mode is sent on the next enforce. */
    public void settings(CpuHttpControl settings) {
        this.settings = settings;
    }

    @Override
    public ControlOutcome enforce(CapRequest cap, NodeFacts facts) {
        if (settings == null || settings.endpoint() == null || settings.endpoint().isBlank()) {
            return ControlOutcome.blocked(CpuBackend.HTTP, "controls.cpu.http.endpoint is not set", Map.of());
        }
        double capWatts;
        switch (RemoteCaps.cpuNodeWatts(cap, facts.hardware())) {
            case RemoteCaps.Problem(String why) -> {
                return ControlOutcome.blocked(CpuBackend.HTTP, why, Map.of());
            }
            case RemoteCaps.Watts(double watts, String _) -> capWatts = watts;
        }
        boolean throttle = settings.mode() == CpuControlMode.DVFS;
        if (throttle && facts.packageWatts().isPresent()) {
            try {
                dvfs.onReading(capWatts, facts.packageWatts().getAsDouble());
            } catch (IOException | IllegalArgumentException e) {
                // the virtual cpufreq does not fail; a bad cap or reading is reported, never thrown
                Map<Observed, Double> observed = new EnumMap<>(Observed.class);
                observed.put(Observed.THROTTLE_PCT, (double) dvfs.throttlePercent());
                return new ControlOutcome(CpuBackend.HTTP, ControlResult.ERROR, "DVFS loop refused the input: " + e.getMessage(), observed);
            }
        }
        int throttlePct = throttle ? dvfs.throttlePercent() : 0;
        ObjectNode body = action.body(throttle ? DVFS_ACTION : RAPL_ACTION);
        body.put("capWatts", capWatts);
        body.put("throttlePct", throttlePct);
        Map<Observed, Double> observed = new EnumMap<>(Observed.class);
        observed.put(Observed.CAP_WATTS, capWatts);
        if (throttle) {
            observed.put(Observed.THROTTLE_PCT, (double) throttlePct);
        }
        int timeout = Objects.requireNonNullElse(settings.timeoutSeconds(), NodeEndpoint.DEFAULT_TIMEOUT_SECONDS);
        return action.post(CpuBackend.HTTP, NodeEndpoint.forNode(settings.endpoint(), node), timeout, body, observed);
    }

    @Override
    public ControlOutcome restore() {
        action.forget();
        return ControlOutcome.none(CpuBackend.HTTP, "nothing to restore for http control");
    }

    /** 100 policies that only count: throttle p % is p policies "at minimum", written nowhere. */
    private static final class VirtualCpufreq implements Cpufreq {
        private final List<CpufreqPolicy> policies = new ArrayList<>();

        VirtualCpufreq() {
            for (int i = 0; i < 100; i++) {
                policies.add(new CpufreqPolicy(i, 1, 2, 2));
            }
        }

        @Override
        public List<CpufreqPolicy> policies() {
            return policies;
        }

        @Override
        public long setScalingMaxKHz(int policyId, long kHz) {
            return kHz;
        }

        @Override
        public void recordOriginals() {
        }

        @Override
        public void restore() {
        }
    }
}
