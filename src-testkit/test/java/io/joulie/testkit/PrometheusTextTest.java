package io.joulie.testkit;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PrometheusTextTest {
    static final String TEXT = """
            # HELP joulie_agent_actions_total
            # TYPE joulie_agent_actions_total counter
            joulie_agent_actions_total{backend="powercap",kind="apply",node="a",result="applied"} 3.0
            joulie_agent_actions_total{backend="powercap",kind="reapply",node="a",result="applied"} 1.0
            joulie_agent_actions_total{backend="http",kind="apply",node="b",result="error"} 2.0
            joulie_agent_actions_total_created{backend="http",kind="apply",node="b",result="error"} 1.7E9
            joulie_leader 1.0
            joulie_leader_changes_total 4.0
            """;

    @Test
    void sumsTheSamplesOfExactlyTheNamedMetricWhoseLabelsAllMatch() {
        assertThat(PrometheusText.sum(TEXT, "joulie_agent_actions_total")).isEqualTo(6.0);
        assertThat(PrometheusText.sum(TEXT, "joulie_agent_actions_total", "kind=\"apply\"")).isEqualTo(5.0);
        assertThat(PrometheusText.sum(TEXT, "joulie_agent_actions_total", "kind=\"apply\"", "node=\"a\"")).isEqualTo(3.0);
        assertThat(PrometheusText.sum(TEXT, "joulie_leader")).isEqualTo(1.0);
        assertThat(PrometheusText.sum(TEXT, "joulie_agent_actions_total", "kind=\"restore\"")).isZero();
        assertThat(PrometheusText.sum(TEXT, "joulie_agent")).isZero();
    }

    @Test
    void scrapesTheManagementEndpointAndRefusesAnythingButA200() throws IOException {
        AtomicInteger status = new AtomicInteger(200);
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/q/metrics", exchange -> {
            byte[] body = TEXT.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status.get(), body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            int port = server.getAddress().getPort();
            assertThat(PrometheusText.metric(port, "joulie_agent_actions_total", "node=\"b\"")).isEqualTo(2.0);
            status.set(503);
            assertThatThrownBy(() -> PrometheusText.scrape(port)).isInstanceOf(AssertionError.class).hasMessageContaining("503");
        } finally {
            server.stop(0);
        }
    }
}
