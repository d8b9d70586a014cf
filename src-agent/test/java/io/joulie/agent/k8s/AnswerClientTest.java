package io.joulie.agent.k8s;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.joulie.agent.control.Family;
import io.joulie.agent.metrics.AgentMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * During an API brownout (503 on every request) the agent's writes cost one request each, not the shared client's
 * eleven (a first try and ten retries), and the answer that failed is written at the agent's next pass.
 */
class AnswerClientTest {
    final AtomicInteger requests = new AtomicInteger();
    volatile int status = 503;
    HttpServer server;
    KubernetesClient shared;
    KubernetesClient answers;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            requests.incrementAndGet();
            exchange.getRequestBody().readAllBytes();
            byte[] body = (status == 503 ? "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":503}"
                    : "{\"apiVersion\":\"joulie.io/v1alpha1\",\"kind\":\"NodePowerProfile\",\"metadata\":{\"name\":\"node-a\"}}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        // the shared client as fabric8 configures it by default (ten retries), with a 1 ms backoff to keep the test short
        shared = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
                .withMasterUrl("http://127.0.0.1:" + server.getAddress().getPort()).withRequestRetryBackoffInterval(1).build()).build();
        answers = AnswerClient.of(shared);
    }

    @AfterEach
    void stop() {
        answers.close();
        shared.close();
        server.stop(0);
    }

    @Test
    void theSharedClientRetriesABrownoutTenTimesTheAnswerClientSendsOneRequest() {
        assertThat(shared.getConfiguration().getRequestRetryBackoffLimit()).isEqualTo(10);
        StatusWriter sharedWriter = new StatusWriter(shared, InstantSource.system());
        assertThatThrownBy(() -> sharedWriter.write(StatusPublisherTest.npp(3, null).orElseThrow(),
                StatusPublisher.answer(3L, null, Map.of(Family.CPU, StatusPublisherTest.applied(80)))))
                .isInstanceOf(RuntimeException.class);
        assertThat(requests.get()).isEqualTo(11);

        requests.set(0);
        assertThat(answers.getConfiguration().getRequestRetryBackoffLimit()).isZero();
        assertThat(answers.getConfiguration().getRequestTimeout()).isEqualTo(AnswerClient.TIMEOUT_MS);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        StatusPublisher publisher = new StatusPublisher(new StatusWriter(answers, InstantSource.system()), new AgentMetrics(registry));
        publisher.publish("a", StatusPublisherTest.npp(3, null), StatusPublisherTest.applied(80));
        assertThat(requests.get()).isEqualTo(1);
        assertThat(registry.get("joulie.agent.errors").tags("node", "a", "kind", "status").counter().count()).isEqualTo(1);

        // the API is back: the agent's next pass, with the same outcome, writes the answer that failed
        status = 200;
        publisher.publish("a", StatusPublisherTest.npp(3, null), StatusPublisherTest.applied(80));
        assertThat(requests.get()).isEqualTo(2);
        // and a third pass with nothing new writes nothing
        publisher.publish("a", StatusPublisherTest.npp(3, null), StatusPublisherTest.applied(80));
        assertThat(requests.get()).isEqualTo(2);
    }

    @Test
    void anEventDuringABrownoutIsOneRequestCountedAsAnError() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new NodeEvents(answers, InstantSource.fixed(Instant.parse("2026-11-27T12:00:00Z")), new AgentMetrics(registry))
                .record("worker-1", NodeEvents.Reason.MsrUnavailable, "MSR reads refused");
        assertThat(requests.get()).isEqualTo(1);
        assertThat(registry.get("joulie.agent.errors").tags("node", "worker-1", "kind", "event").counter().count()).isEqualTo(1);
    }
}
