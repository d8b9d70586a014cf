package io.joulie.agent.control;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.joulie.api.http.BoundedHttp;
import io.joulie.api.v1alpha1.ControlResult;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Map;

/**
 * One node's actions on a simulated-hardware endpoint: {@code POST {url}} of a JSON body ({@code node}, {@code action},
 * the action's values, {@code ts}). A 2xx answer is {@code applied}, any other status {@code error} naming it, as are
 * timeouts (of the whole exchange, body included), answers larger than {@link BoundedHttp#MAX_BODY_BYTES} and
 * connection failures. An action is sent when what it says (url and body without {@code ts}) differs
 * from the last one answered 2xx, so a converged node sends nothing; a failed one is sent again on the next reconcile.
 * Not thread-safe: the agent's worker calls it.
 */
public final class HttpAction {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final String node;
    private final InstantSource clock;
    private String lastAcknowledged;
    private ControlOutcome lastOutcome;

    public HttpAction(HttpClient http, String node, InstantSource clock) {
        this.http = http;
        this.node = node;
        this.clock = clock;
    }

    /** A body naming this node and {@code action}, for the caller to add the action's values to. */
    public ObjectNode body(String action) {
        ObjectNode body = JSON.createObjectNode();
        body.put("node", node);
        body.put("action", action);
        return body;
    }

    /**
     * Sends {@code body} to {@code url} unless it was the last acknowledged.
     *
     * @param observed what the outcome reports whatever the answer
     */
    public ControlOutcome post(Backend backend, String url, int timeoutSeconds, ObjectNode body, Map<Observed, Double> observed) {
        String key = url + " " + body;
        if (key.equals(lastAcknowledged) && lastOutcome != null) {
            return lastOutcome;
        }
        String action = body.path("action").asText();
        ObjectNode sent = body.deepCopy();
        sent.put("ts", clock.instant().truncatedTo(ChronoUnit.MILLIS).toString());
        lastAcknowledged = null;
        try {
            Duration deadline = Duration.ofSeconds(timeoutSeconds);
            HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(deadline)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(sent))).build();
            BoundedHttp.Answer response = BoundedHttp.send(http, request, deadline, BoundedHttp.MAX_BODY_BYTES);
            if (response.ok()) {
                lastAcknowledged = key;
                lastOutcome = new ControlOutcome(backend, ControlResult.APPLIED, action + " accepted by " + url + " (HTTP "
                        + response.status() + ")", observed);
                return lastOutcome;
            }
            return new ControlOutcome(backend, ControlResult.ERROR, "POST " + url + " answered HTTP " + response.status(), observed);
        } catch (HttpTimeoutException e) {
            return new ControlOutcome(backend, ControlResult.ERROR, "POST " + url + " timed out after " + timeoutSeconds + " s", observed);
        } catch (IOException | IllegalArgumentException e) {
            return new ControlOutcome(backend, ControlResult.ERROR, "POST " + url + " failed: " + e, observed);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new ControlOutcome(backend, ControlResult.ERROR, "POST " + url + " interrupted", observed);
        }
    }

    /** Forgets what was acknowledged: the next action is sent whatever it says. */
    public void forget() {
        lastAcknowledged = null;
        lastOutcome = null;
    }
}
