package io.joulie.agent.control.cpu;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.Observed;
import io.joulie.agent.host.Cpufreq;
import io.joulie.agent.host.CpufreqPolicy;
import io.joulie.api.http.BoundedHttp;
import io.joulie.agent.routing.NodeEndpoint;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.CpuControlMode;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.CpuHttpControl;
import io.joulie.api.v1alpha1.TelemetryProfileStatus.Result;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * HTTP control: {@code POST {endpoint}} ({@code {node}} replaced by the node name) with
 * {@code {"node","action","capWatts","throttlePct","ts"}}. Mode auto and rapl send
 * {@code rapl.set_power_cap_watts}; dvfs sends {@code dvfs.set_throttle_pct} with the throttle of a
 * {@link DvfsController} fed by the node's package power readings. A 2xx answer is {@code applied}, any other
 * status {@code error} naming it, as are timeouts (of the whole exchange, body included), answers larger than
 * {@link BoundedHttp#MAX_BODY_BYTES} and connection failures. A request is sent when what it
 * would say (endpoint, action, cap, throttle) differs from the last one answered 2xx, so a converged node
 * sends nothing; a failed request is retried on the next reconcile.
 */
public final class HttpCpuControl implements CpuControl {
    public static final String RAPL_ACTION = "rapl.set_power_cap_watts";
    public static final String DVFS_ACTION = "dvfs.set_throttle_pct";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final String node;
    private final InstantSource clock;
    private final DvfsController dvfs;
    private CpuHttpControl settings;
    private String lastAcknowledged;
    private ControlOutcome lastOutcome;

    public HttpCpuControl(HttpClient http, String node, CpuHttpControl settings, InstantSource clock) {
        this.http = http;
        this.node = node;
        this.settings = settings;
        this.clock = clock;
        this.dvfs = new DvfsController(new VirtualCpufreq(), clock);
    }

    /** Follows a TelemetryProfile change; a different endpoint or mode is sent on the next enforce. */
    public void settings(CpuHttpControl settings) {
        this.settings = settings;
    }

    @Override
    public ControlOutcome enforce(double capWatts, OptionalDouble packageWatts) {
        if (settings == null || settings.endpoint() == null || settings.endpoint().isBlank()) {
            return ControlOutcome.blocked(CpuBackend.HTTP, "controls.cpu.http.endpoint is not set", Map.of());
        }
        boolean throttle = settings.mode() == CpuControlMode.DVFS;
        if (throttle && packageWatts.isPresent()) {
            try {
                dvfs.onReading(capWatts, packageWatts.getAsDouble());
            } catch (IOException | IllegalArgumentException e) {
                // the virtual cpufreq does not fail; a bad cap or reading is reported, never thrown
                Map<Observed, Double> observed = new EnumMap<>(Observed.class);
                observed.put(Observed.THROTTLE_PCT, (double) dvfs.throttlePercent());
                return new ControlOutcome(CpuBackend.HTTP, Result.ERROR, "DVFS loop refused the input: " + e.getMessage(), observed);
            }
        }
        String url = NodeEndpoint.forNode(settings.endpoint(), node);
        String action = throttle ? DVFS_ACTION : RAPL_ACTION;
        int throttlePct = throttle ? dvfs.throttlePercent() : 0;
        String key = url + " " + action + " " + capWatts + " " + throttlePct;
        if (key.equals(lastAcknowledged) && lastOutcome != null) {
            return lastOutcome;
        }
        ObjectNode body = JSON.createObjectNode();
        body.put("node", node);
        body.put("action", action);
        body.put("capWatts", capWatts);
        body.put("throttlePct", throttlePct);
        body.put("ts", clock.instant().truncatedTo(ChronoUnit.MILLIS).toString());
        Map<Observed, Double> observed = new EnumMap<>(Observed.class);
        observed.put(Observed.CAP_WATTS, capWatts);
        if (throttle) {
            observed.put(Observed.THROTTLE_PCT, (double) throttlePct);
        }
        int timeout = Objects.requireNonNullElse(settings.timeoutSeconds(), NodeEndpoint.DEFAULT_TIMEOUT_SECONDS);
        try {
            Duration deadline = Duration.ofSeconds(timeout);
            HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(deadline)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build();
            BoundedHttp.Answer response = BoundedHttp.send(http, request, deadline, BoundedHttp.MAX_BODY_BYTES);
            if (response.ok()) {
                lastAcknowledged = key;
                lastOutcome = new ControlOutcome(CpuBackend.HTTP, Result.APPLIED, action + " accepted by " + url + " (HTTP "
                        + response.status() + ")", observed);
                return lastOutcome;
            }
            lastAcknowledged = null;
            return new ControlOutcome(CpuBackend.HTTP, Result.ERROR, "POST " + url + " answered HTTP " + response.status(), observed);
        } catch (HttpTimeoutException e) {
            lastAcknowledged = null;
            return new ControlOutcome(CpuBackend.HTTP, Result.ERROR, "POST " + url + " timed out after " + timeout + " s", observed);
        } catch (IOException | IllegalArgumentException e) {
            lastAcknowledged = null;
            return new ControlOutcome(CpuBackend.HTTP, Result.ERROR, "POST " + url + " failed: " + e, observed);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new ControlOutcome(CpuBackend.HTTP, Result.ERROR, "POST " + url + " interrupted", observed);
        }
    }

    @Override
    public ControlOutcome restore() {
        lastAcknowledged = null;
        lastOutcome = null;
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
